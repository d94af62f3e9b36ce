package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/coverage"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/scripttest"
	"github.com/restls/restls/workspace"
)

func runTest(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "test", "[--run REGEX] [--update] [--live] [--junit FILE] [--json] [-v] [--timeout D] [--max-memory SIZE] [--validate-responses] [--openapi ID=PATH_OR_URL] [--coverage] [--coverage-min PCT] [--coverage-dir DIR] [--faults] [--fail LIST] [config flags] [PATH...]", `
Runs the script tests in the NAME.test.yaml files under the PATHs
(default .; below a PATH, no directory whose name starts with "." and no
node_modules, as every project walk leaves them out: name one as a PATH
to run its tests): each names a script (relative to the test file; an
absolute path is refused), its kind, context.input and the
fixtures that answer its calls (the --mock format), and expects a result
(result, or resultMatch for a part of it) or a thrown error, the calls
made and the console output (docs/ci.md; schema:
scripttest/schema/test.schema.json).

Tests run offline: a call no fixture answers fails with no-fixture, unless
--live sends it to the service. --update writes the actual outcome into
the expectations of the tests that fail (or expect nothing yet), so a
plain run then passes.

Each test runs in this process through the dry-run engine every surface
uses, one runtime per test, several side by side: --timeout bounds each,
and a script that makes the process grow by more than --max-memory is
stopped with the error code memory-limit.

--validate-responses (or validateResponses: true in the project file or
in a test file, which wins) checks every answer, a fixture's or with
--live a service's, against the services' OpenAPI descriptions (--openapi
and the project file's openapi): an undocumented status or a JSON body
that breaks the schema fails the test with the JSON path and the schema
rule. --update does not mend such a failure: the fixture or the
description must change.

--coverage (or coverage: {enabled: true} in the project file) watches
every test's run and writes lcov.info and cobertura.xml (lines and
branches of each script) to --coverage-dir, and after the report a
summary per script: lines and branches run, and at each api.rest.v1
call site the outcomes the tests exercised (2XX, each error status, each
RestClientError code). --coverage-min PCT fails the run (exit 1) when
fewer than PCT percent of the scripts' lines ran (docs/debugging.md).

--faults (or faults: true in a test file or case) explores each test's
error paths as restls faults does, from the test's own run: each call
site answered by each outcome (documented statuses, 500, 404, 400, the
OAuth failures, not-json, timeouts, connection-refused), each verdict
shown in a table after the test; a verdict in --fail (else the test
file's faults.fail, else the project file's, else crashed,misread) or one
that breaks the file's faults.expect fails the test. With --update, a
case is added per escaped or crashed outcome, with that outcome's fixture
and what the script did, for the author to confirm (docs/ci.md, "Error
paths in tests").

Exit status: 0 when every test passes; 1 when one fails (a malformed test
file is a failing test, as is coverage below --coverage-min); 2 for usage errors, a PATH that does not exist,
no test file found, no service configuration found, or a --junit file
that cannot be written.`)
	runRE := fs.String("run", "", "run only the tests whose FILE/NAME matches this `regexp`")
	upd := fs.Bool("update", false, "write the actual result, error and calls into the expectations of failing tests and of tests that expect nothing yet")
	live := fs.Bool("live", false, "send the calls no fixture answers to the network instead of failing them")
	junit := fs.String("junit", "", "also write JUnit XML to this `file` (a testsuite per test file)")
	asJSON := fs.Bool("json", false, "print one JSON object: tests, passed, failed")
	verbose := fs.Bool("v", false, "list passing tests too")
	timeout := fs.Duration("timeout", scriptrt.DefaultTimeout, "interrupt each test's script after this `duration`")
	maxMemory := memoryFlag(fs, "stop a test's script when the process has grown by this `size` while it runs")
	exploreFaults := fs.Bool("faults", false, "explore every test's error paths (restls faults) unless its file or case says faults: false; with --update, add a case per escaped or crashed outcome")
	fail := fs.String("fail", "", "comma-separated `LIST` of the verdicts of --faults that fail a test (escaped, crashed, misread, unanswered); a test file's faults.fail overrides it; default: the project file's faults.fail, else crashed,misread")
	validate := fs.Bool("validate-responses", false, "fail a test whose answers break their operation's OpenAPI description (--openapi, the project file's openapi); a test file's validateResponses overrides it, and it overrides the project file's")
	var openAPI openAPIFlags
	cov := fs.Bool("coverage", false, "measure which lines, branches and call outcomes of each script the tests run: lcov.info and cobertura.xml in --coverage-dir, a summary in the report")
	covMin := fs.Float64("coverage-min", 0, "fail the run when fewer than this `percent` of the scripts' lines ran (implies --coverage)")
	covDir := fs.String("coverage-dir", "coverage", "where --coverage writes lcov.info and cobertura.xml (`dir`ectory, made when missing)")
	fs.Var(&openAPI, "openapi", "the OpenAPI description --validate-responses checks answers against (a file or http(s) URL): `ID=PATH_OR_URL`; PATH_OR_URL alone serves every service whose url starts with one of its servers (repeatable; after the project file's openapi)")
	cf := configFlags{env: env}
	cf.register(fs)
	paths, rc := parseInterleaved(env, fs, args)
	if rc >= 0 {
		return rc
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.stderr, "restls test: "+format+"\n", a...)
		return 2
	}
	var re *regexp.Regexp
	if *runRE != "" {
		var err error
		if re, err = regexp.Compile(*runRE); err != nil {
			return usageErr("--run: %v", err)
		}
	}
	if *timeout <= 0 {
		return usageErr("--timeout must be positive, got %v", *timeout)
	}
	// The paths first: a typo in one is the problem to report, not the
	// configuration that would have been used.
	files, err := scripttest.Find(paths)
	if err != nil {
		return usageErr("%v", err)
	}
	if len(files) == 0 {
		return usageErr("no test files (*%s) found", scripttest.Suffix)
	}
	if len(paths) > 0 {
		cf.start = paths[0]
	}
	if cf.rootMissing("test") {
		return 2
	}
	// The project as the session sees it, as restls run's: the
	// environment's registry, kind map, descriptions and engine level.
	snap := cf.session(cf.openAPI(openAPI)).Snapshot()
	if !snap.Config.For(config.ScriptService).Loaded {
		return usageErr("%s", errNoConfiguration)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := scripttest.Options{Paths: files, Run: re, Snapshot: snap, Live: *live, Update: *upd, Timeout: *timeout, MaxMemory: *maxMemory}
	opts.ValidateResponses = *validate
	opts.Faults = *exploreFaults
	if opts.FaultsFail, err = cf.faultsFail(*fail); err != nil {
		return usageErr("%v", err)
	}
	if p := cf.project; p != nil && p.ValidateResponses != nil && !flagGiven(fs, "validate-responses") {
		opts.ValidateResponses = *p.ValidateResponses
	}
	cs, msg := coverageSettings(fs, cf.project, *cov, *covMin, *covDir)
	if msg != "" {
		return usageErr("%s", msg)
	}
	if cs.on {
		opts.Coverage = coverage.New()
	}
	opts.Notice = func(msg string) { fmt.Fprintf(env.stderr, "restls test: %s\n", msg) }
	rep, err := scripttest.Run(ctx, opts)
	if err != nil {
		return usageErr("%v", err)
	}
	if *junit != "" {
		if err := writeOutputFile(*junit, func(w io.Writer) error { return scripttest.WriteJUnit(w, rep) }); err != nil {
			return usageErr("--junit: %v", err)
		}
	}
	if rep.Coverage != nil {
		if err := writeCoverage(cs.dir, rep.Coverage); err != nil {
			return usageErr("--coverage-dir: %v", err)
		}
	}
	if *asJSON {
		err = scripttest.WriteJSON(env.stdout, rep)
	} else {
		err = scripttest.WriteText(env.stdout, rep, *verbose)
		if err == nil && rep.Coverage != nil {
			err = coverage.WriteText(env.stdout, rep.Coverage)
		}
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "restls test: %v\n", err)
		return 1
	}
	if rc := rep.ExitCode(); rc != 0 {
		return rc
	}
	if rep.Coverage != nil && cs.min > 0 && rep.Coverage.Lines.Percent() < cs.min {
		fmt.Fprintf(env.stderr, "restls test: coverage %s of lines is below --coverage-min %v%%: add tests for the lines not run (the summary lists them)\n",
			percentText(rep.Coverage.Lines.Percent()), cs.min)
		return 1
	}
	return 0
}

// testCoverage is restls test's coverage, decided once from the flags
// and the project file (a flag given wins).
type testCoverage struct {
	on  bool
	min float64
	dir string
}

func coverageSettings(fs *flag.FlagSet, p *workspace.Project, on bool, min float64, dir string) (testCoverage, string) {
	c := testCoverage{on: on, min: min, dir: dir}
	if p != nil {
		pc := p.Coverage
		if pc.Enabled != nil && !flagGiven(fs, "coverage") {
			c.on = *pc.Enabled
		}
		if pc.Min != nil && !flagGiven(fs, "coverage-min") {
			c.min = *pc.Min
		}
		if pc.Dir != "" && !flagGiven(fs, "coverage-dir") {
			c.dir = pc.Dir
		}
	}
	if c.min < 0 || c.min > 100 {
		return c, fmt.Sprintf("--coverage-min %v is not a percentage: give a number from 0 to 100", c.min)
	}
	if c.min > 0 {
		c.on = true
	}
	return c, ""
}

// writeCoverage writes lcov.info and cobertura.xml into dir.
func writeCoverage(dir string, rep *coverage.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	write := func(name string, f func(io.Writer) error) error { return writeOutputFile(filepath.Join(dir, name), f) }
	if err := write("lcov.info", func(w io.Writer) error { return coverage.WriteLCOV(w, rep) }); err != nil {
		return err
	}
	return write("cobertura.xml", func(w io.Writer) error {
		return coverage.WriteCobertura(w, rep, coverage.CoberturaOptions{Source: cwd, Timestamp: time.Now().UnixMilli(), Version: "restls " + version})
	})
}

func percentText(p float64) string { return strconv.FormatFloat(p, 'f', 1, 64) + "%" }
