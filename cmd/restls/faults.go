package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/restls/restls/check"
	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/faults"
	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/scripttest"
	"github.com/restls/restls/workspace"
)

// faultFormats are restls faults' --format values: check's, whose SARIF
// and GitHub writers it reuses.
var faultFormats = []string{"text", "json", "sarif", "github"}

func runFaults(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "faults", "[--mock F] [--kind K] [--outcomes LIST] [--fail LIST] [--max-runs N] [--format F] [--junit FILE] [--openapi ID=PATH_OR_URL] [config flags] SCRIPT", `
Proves a script's error paths (issue 36): runs SCRIPT with its fixtures
(--mock, else the file beside it), which must succeed, then again for
each call site it reaches (the first call of each serviceId, method and
path) with that call answered by each outcome: each non-2XX status the
call's operation documents in its OpenAPI description (--openapi, the
project file's openapi; the body from the description), an undocumented
500 with a text body, 404, 400; for an OAuth service token-request-failed
and 401-after-retry; then not-json, connect-timeout, read-timeout and
connection-refused (docs/runtime.md, "Error paths"). Every run is answered
by fixtures only: no call leaves the machine. At most --max-runs reruns;
a note says what the cap cut.

Each (call site, outcome) gets a verdict: handled (the script returned or
threw an error of its own), escaped (the contract's exception or a
RestClientError left the script), crashed (a TypeError, ReferenceError or
RangeError after the failure, or a run out of time or memory), misread
(the contract's foreign-error rule broken: a RestClientError taken for an
answer of the service, or the reverse), unanswered (after the failure a
call no fixture answers). --fail (else the project file's faults.fail,
else crashed,misread) names the verdicts that fail the script.

Exit status: 0 when no verdict fails, 1 when one does or the run with the
fixtures fails, 2 for usage errors or when the script, fixtures or
configuration cannot be loaded.`)
	mockFile := fs.String("mock", "", "fixtures `FILE` the successful run uses; default: the file beside SCRIPT (NAME.mock.yaml or .json)")
	kind := fs.String("kind", "", "script `KIND` (scriptService, scriptTask, validationScript); default: the kind rule")
	outcomes := fs.String("outcomes", "", "comma-separated `LIST` of outcomes to try (names such as 404, connect-timeout, 401-after-retry; a status code 300-599); default: every outcome of each call site")
	fail := fs.String("fail", "", "comma-separated `LIST` of the verdicts that fail the script (escaped, crashed, misread, unanswered); default: the project file's faults.fail, else crashed,misread")
	maxRuns := fs.Int("max-runs", faults.DefaultMaxRuns, "at most `N` reruns of the script; a note says how many (call site, outcome) pairs the cap cut")
	format := fs.String("format", "text", "output `format`: text (a table per call site), json, sarif (a finding at the call site naming the outcome) or github (workflow-command annotations)")
	asJSON := fs.Bool("json", false, "the same as --format json")
	junit := fs.String("junit", "", "also write JUnit XML to this `file`: a testcase per (call site, outcome), failing when its verdict fails")
	var openAPI openAPIFlags
	fs.Var(&openAPI, "openapi", "the OpenAPI description whose documented statuses are tried (a file or http(s) URL): `ID=PATH_OR_URL`; repeatable; after the project file's openapi")
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
	if *asJSON {
		*format = "json"
	}
	if !slices.Contains(faultFormats, *format) {
		return usageErr("unknown --format %q: use one of %s", *format, strings.Join(faultFormats, ", "))
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
	workers := runtime.GOMAXPROCS(0)
	opts := faults.Options{MaxRuns: *maxRuns, Parallel: workers}
	if *outcomes != "" {
		opts.Outcomes = strings.Split(*outcomes, ",")
	}
	if err := opts.Check(); err != nil {
		return usageErr("--outcomes: %v", err)
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
	if opts.Fail, err = cf.faultsFail(*fail); err != nil {
		return usageErr("%v", err)
	}
	snap := cf.session(cf.openAPI(openAPI)).Snapshot()
	// A one-shot command runs the reruns in process, one per core at
	// once, each with the normal time and memory limits of an in-process
	// run (the server isolates them in children).
	eng := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: workers})
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
	if *junit != "" {
		if err := writeOutputFile(*junit, func(w io.Writer) error { return scripttest.WriteJUnit(w, faultsJUnit(script, rep)) }); err != nil {
			return usageErr("--junit: %v", err)
		}
	}
	if err := writeFaults(env.stdout, *format, script, rep); err != nil {
		fmt.Fprintf(env.stderr, "restls faults: %v\n", err)
		return 1
	}
	if rep.Failed() > 0 {
		return 1
	}
	return 0
}

// writeFaults writes rep in format (faultFormats).
func writeFaults(w io.Writer, format, script string, rep *faults.Report) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	case "sarif", "github":
		return check.Write(w, faultsCheck(script, rep), format, versionString())
	}
	// The script's name and what it and its services wrote are the
	// repository's text: escaped for the terminal.
	var b strings.Builder
	if err := faults.WriteText(&b, script, rep); err != nil {
		return err
	}
	_, err := io.WriteString(w, input.PrintableLines(b.String()))
	return err
}

// faultsCheck is rep as restls check's findings, for its SARIF and
// GitHub writers: one at the call site per outcome not handled, its code
// fault-VERDICT (docs/diagnostics.md), an error when the verdict fails
// the script, else a warning.
func faultsCheck(script string, rep *faults.Report) *check.Report {
	out := &check.Report{Scripts: 1, Findings: []check.Finding{}}
	for _, f := range rep.Findings {
		if f.Verdict == faults.Handled {
			continue
		}
		s := rep.Sites[f.Site]
		sev := check.SeverityWarning
		if rep.Fails(f) {
			sev = check.SeverityError
		}
		out.Findings = append(out.Findings, check.Finding{File: script, Line: s.Line, Column: 1, Severity: sev, Code: "fault-" + string(f.Verdict),
			Message: fmt.Sprintf("%s %s path %q answered %s: %s %s", s.Method, s.ServiceID, strings.Join(s.PathParams, "/"), f.Outcome, f.Verdict, f.Detail())})
	}
	return out
}

// faultsJUnit is rep as restls test's report, for its JUnit writer: a
// test per (call site, outcome), failing when its verdict fails.
func faultsJUnit(script string, rep *faults.Report) *scripttest.Report {
	out := &scripttest.Report{Files: 1}
	for _, f := range rep.Findings {
		o := &scripttest.Outcome{File: script, Name: faults.CaseName(rep.Sites[f.Site], f.Outcome), Line: rep.Sites[f.Site].Line, Passed: !rep.Fails(f)}
		if !o.Passed {
			o.Failures = []string{string(f.Verdict) + ": " + f.Detail()}
			out.Failed++
		} else {
			out.Passed++
		}
		out.Outcomes = append(out.Outcomes, o)
	}
	return out
}

// writeOutputFile writes a report file (--junit, coverage) with write, in
// one step (input.ReplaceFile): a reader sees the old report or the new
// one, a write that fails leaves the old one whole, and a link at name is
// replaced, never written through.
func writeOutputFile(name string, write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	return input.ReplaceFile(name, b.Bytes())
}
