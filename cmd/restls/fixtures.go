package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/restls/restls/hints"
	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

func runFixtures(env *cliEnv, args []string) int {
	if len(args) > 0 && args[0] == "schema" {
		return runFixturesSchema(env, args[1:])
	}
	fs := newFlagSet(env, "fixtures generate", "[--openapi ID=PATH_OR_URL] [config flags] SCRIPT", `
Adds a fixture for every api.rest.v1 call of SCRIPT that no fixture
answers yet to the fixture file beside it (NAME.mock.yaml, created when
missing; NAME.mock.json when that is the one there), built from the
services' OpenAPI descriptions (--openapi and the project file's
openapi): the operation's first documented 2XX answer with its example,
else a minimal value that holds to the answer's schema. A pathParams
segment the script computes becomes "*". The fixtures already in the
file stay as they are; restls run --mock FILE and restls test replay
them (docs/runtime.md, "Fixtures from the description").

A call whose serviceId or method is computed, whose serviceId has no
description, or that matches no operation is named on stderr and left
out.

Exit status: 0 when every call has a fixture (added or already there);
1 when a call is left out; 2 for usage errors, a SCRIPT that cannot be
read, no description, or a fixture file that cannot be updated.`)
	var openAPI openAPIFlags
	fs.Var(&openAPI, "openapi", "the OpenAPI description fixtures are built from (a file or http(s) URL): `ID=PATH_OR_URL`; PATH_OR_URL alone serves every service whose url starts with one of its servers (repeatable; after the project file's openapi)")
	cf := configFlags{env: env}
	cf.register(fs)
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.stderr, "restls fixtures: "+format+"\n", a...)
		return 2
	}
	if len(args) == 0 || args[0] != "generate" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			return parseFlags(env, fs, args)
		}
		return usageErr("the subcommands are generate and schema: restls fixtures generate SCRIPT, restls fixtures schema SERVICEID")
	}
	pos, rc := parseInterleaved(env, fs, args[1:])
	if rc >= 0 {
		return rc
	}
	if len(pos) != 1 {
		return usageErr("name one SCRIPT: restls fixtures generate SCRIPT")
	}
	script := pos[0]
	src, err := input.ReadFile(script, input.Script)
	if err != nil {
		return usageErr("cannot read the script: %s", readErr(script, err))
	}
	cf.start = script
	if cf.rootMissing("fixtures") {
		return 2
	}
	abs, err := filepath.Abs(script)
	if err != nil {
		abs = script
	}
	sources := cf.openAPI(openAPI)
	// The script's kind and registry as a run of it decides them: the
	// session's snapshot, its kind rule.
	sess := cf.session(sources)
	ws := sess.Snapshot()
	reg := ws.Config.For(ws.Kind(filepath.ToSlash(abs), string(src)).Kind)
	if !reg.Loaded {
		return usageErr("%s", errNoConfiguration)
	}
	if len(sources) == 0 {
		return usageErr("no API description: name one with --openapi ID=PATH_OR_URL, or in the project file's openapi")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// The descriptions with their answers' schemas from the session's
	// store, the one its runs' answers are checked with.
	if err := sess.WaitAnswers(ctx); err != nil {
		return usageErr("the API descriptions did not load: %v", err)
	}
	docs, _ := sess.AnswerDescriptions().Docs(sources)
	failed := false
	for _, d := range docs {
		if d.Err != nil {
			fmt.Fprintf(env.stderr, "restls fixtures: %v\n", d.Err)
			failed = true
		}
	}
	if failed {
		return 2
	}
	set := sess.AnswerAPIs(reg)
	file := workspace.FixtureFile(script)
	if err := workspace.FixtureWritable(script, file); err != nil {
		return usageErr("cannot write %s: %v", file, err)
	}
	old, err := workspace.FixtureText(script, file)
	if err != nil {
		return usageErr("cannot read %s: %v", file, err)
	}
	text := string(src)
	cur, added, left := old, 0, 0
	for _, cs := range hints.CallSites(hints.NewDocument(text)) {
		where := fmt.Sprintf("%s:%d", script, 1+strings.Count(text[:cs.Call.Start], "\n"))
		if cs.Dynamic || cs.ServiceID == "" || cs.Method == "" {
			fmt.Fprintf(env.stderr, "%s: api.rest.v1.%s: the serviceId or the method is computed; add its fixture by hand\n", where, cs.Name)
			left++
			continue
		}
		shape := workspace.CallShapeOf(cs.ServiceID, cs.Method, cs.Path)
		if workspace.Answered(cur, shape) {
			continue // by a fixture there, or one just added
		}
		f, op, err := workspace.FixtureFor(set, shape)
		if err != nil {
			fmt.Fprintf(env.stderr, "%s: %v\n", where, err)
			left++
			continue
		}
		if cur, err = workspace.AddFixtures(file, cur, []restclient.NewFixture{f}); err != nil {
			return usageErr("%v", err)
		}
		added++
		fmt.Fprintf(env.stdout, "%s: %s %s %s: status %d from %s\n", where, f.Method, f.ServiceID, fixturePathText(f.Path), f.Status, op)
		if f.Comment != "" {
			fmt.Fprintf(env.stderr, "%s: %s %s: %s\n", where, f.Method, f.ServiceID, f.Comment)
		}
	}
	if added > 0 {
		if err := restclient.WriteFixtures(file, cur); err != nil {
			return usageErr("%v", err)
		}
	}
	fmt.Fprintf(env.stdout, "%s: %s added\n", file, count(added, "fixture", "fixtures"))
	if left > 0 {
		return 1
	}
	return 0
}

// fixturePathText is a fixture's path as the report shows it: a call
// with no pathParams goes to the service's address itself, which an
// empty path (once printed ".") does not say.
func fixturePathText(path string) string {
	if path == "" {
		return "(no pathParams: the service's address)"
	}
	return path
}
