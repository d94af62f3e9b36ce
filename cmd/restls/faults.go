package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/faults"
	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

func runFaults(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "faults", "[--mock F] [--kind K] [--outcomes LIST] [--max-runs N] [--json] [config flags] SCRIPT", `
Proves a script's error paths (issue 36, first version): runs SCRIPT with
its fixtures (--mock, else the file beside it), which must succeed, then
again for each call site it reaches (the first call of each serviceId,
method and path) with that call answered by each outcome: 500 with a text
body, 404, 400, not-json, connect-timeout, read-timeout and
connection-refused (docs/runtime.md, "Faults"). Every run is answered by
fixtures only: no call leaves the machine.

Each (call site, outcome) gets a verdict: handled (the script returned or
threw an error of its own), escaped (the contract's exception or a
RestClientError left the script), crashed (a TypeError, ReferenceError or
RangeError after the failure, or a run out of time or memory), misread (a
RestClientError taken for an answer of the service: the script returns
for it what it returns for a 404 or 400 it tells from a 500), unanswered
(after the failure a call no fixture answers).

Exit status: 0 when nothing crashed or was misread, 1 when something did
or the run with the fixtures fails, 2 for usage errors or when the
script, fixtures or configuration cannot be loaded.`)
	mockFile := fs.String("mock", "", "fixtures `FILE` the successful run uses; default: the file beside SCRIPT (NAME.mock.yaml or .json)")
	kind := fs.String("kind", "", "script `KIND` (scriptService, scriptTask, validationScript); default: the kind rule")
	outcomes := fs.String("outcomes", "", "comma-separated `LIST` of outcomes to try; default: all ("+strings.Join(faults.Outcomes, ",")+")")
	maxRuns := fs.Int("max-runs", faults.DefaultMaxRuns, "at most `N` reruns of the script; the output says how many (call site, outcome) pairs the cap cut")
	asJSON := fs.Bool("json", false, "print the report as JSON: sites, findings (site, outcome, verdict, result or error, note), runs, cut")
	cf := configFlags{env: env}
	cf.register(fs)
	positional, rc := parseInterleaved(env, fs, args)
	if rc >= 0 {
		return rc
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.stderr, "restls faults: "+format+"\n", a...)
		return 2
	}
	if len(positional) != 1 || positional[0] == "-" {
		return usageErr("expected exactly one SCRIPT file, got %d arguments; see restls faults -h", len(positional))
	}
	script := positional[0]
	src, err := input.ReadFile(script, input.Script)
	if err != nil {
		return usageErr("%v", err)
	}
	abs, err := filepath.Abs(script)
	if err != nil {
		return usageErr("%v", err)
	}
	req := engine.Request{Path: abs, Name: script, Text: string(src)}
	if *kind != "" {
		if req.Kind, err = config.ParseKind(*kind); err != nil {
			return usageErr("--kind: %v", err)
		}
	}
	opts := faults.Options{MaxRuns: *maxRuns}
	if *outcomes != "" {
		opts.Outcomes = strings.Split(*outcomes, ",")
	}
	file := *mockFile
	if file == "" {
		file = workspace.MockFileBeside(abs)
	}
	var base *restclient.Mock
	if file != "" {
		if base, err = restclient.LoadMock(file); err != nil {
			return usageErr("%v", err)
		}
		base.Script = script
	}
	cf.start = script
	if cf.rootMissing("faults") {
		return 2
	}
	snap := workspace.NewSnapshot(config.Load(cf.sources()), cf.projectKinds(), nil, nil, nil, nil)
	snap.Environment = cf.envs.Default()
	// Parsed fixtures answer in process only; each run keeps the normal
	// time and memory limits of an in-process run.
	eng := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: 1})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := faults.Explore(ctx, eng.Run, snap, req, base, opts)
	var be *faults.BaseError
	switch {
	case errors.As(err, &be):
		fmt.Fprintf(env.stderr, "restls faults: %s: %v\n", script, err)
		return 1
	case err != nil:
		return usageErr("%v", err)
	}
	if *asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		writeFaults(env, script, rep)
	}
	for _, f := range rep.Findings {
		if f.Verdict == faults.Crashed || f.Verdict == faults.Misread {
			return 1
		}
	}
	return 0
}

// writeFaults prints a table per call site: outcome, verdict, what
// happened.
func writeFaults(env *cliEnv, script string, rep *faults.Report) {
	w := env.stdout
	counts := map[faults.Verdict]int{}
	for _, f := range rep.Findings {
		counts[f.Verdict]++
	}
	fmt.Fprintf(w, "%s: %s, %s", script, count(len(rep.Sites), "call site", "call sites"), count(rep.Runs, "run", "runs"))
	for _, v := range []faults.Verdict{faults.Handled, faults.Escaped, faults.Crashed, faults.Misread, faults.Unanswered} {
		if counts[v] > 0 {
			fmt.Fprintf(w, ", %d %s", counts[v], v)
		}
	}
	fmt.Fprintln(w)
	for si, s := range rep.Sites {
		fmt.Fprintf(w, "\n%s:%d %s %s path %q\n", script, s.Line, s.Method, s.ServiceID, strings.Join(s.PathParams, "/"))
		for _, f := range rep.Findings {
			if f.Site == si {
				fmt.Fprintf(w, "  %-18s %-10s %s\n", f.Outcome, f.Verdict, findingDetail(f))
			}
		}
	}
	if rep.Cut > 0 {
		fmt.Fprintf(w, "\n--max-runs %d cut %s: raise it, or name fewer --outcomes\n", rep.Runs, count(rep.Cut, "(call site, outcome) pair", "(call site, outcome) pairs"))
	}
}

func findingDetail(f faults.Finding) string {
	if f.Note != "" {
		return f.Note
	}
	e := f.Error
	if e == nil {
		return "returned " + clipLine(string(f.Result), 60)
	}
	what := e.Name
	if e.Code != "" {
		what += " " + e.Code
	}
	if e.Status != nil {
		what += fmt.Sprintf(" %d", e.Status.Code)
	}
	if e.Line > 0 {
		what += fmt.Sprintf(" at line %d", e.Line)
	}
	return what + ": " + clipLine(e.Message, 100)
}

// clipLine cuts s to its first line, and that to n bytes on a rune boundary.
func clipLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
