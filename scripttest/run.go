package scripttest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/restls/restls/coverage"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/faults"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// Options say which tests to run and how.
type Options struct {
	// Paths are test files and directories to search; none means ".".
	Paths []string
	// Run, when set, selects the tests whose "FILE/NAME" matches.
	Run *regexp.Regexp
	// Snapshot is the project as the surface's session sees it (its
	// configuration, kind map, API descriptions, engine level and answer
	// store): each case runs against it, as every other dry run does.
	// The kind map decides the kind of a script whose test file names
	// none; the descriptions hold each call's answer (notes on the call);
	// a case whose script is beyond the engine level fails.
	Snapshot workspace.Snapshot
	// Live sends the calls no fixture answers to the network; otherwise
	// they fail with no-fixture.
	Live bool
	// Update rewrites the expectations of failing tests, and of tests
	// that expect nothing yet, with the actual outcome.
	Update bool
	// Timeout bounds each test's run; 0 means the runtime's default.
	Timeout time.Duration
	// MaxMemory stops a test whose run makes the process grow by more
	// (the memory watchdog); 0 means the runtime's default.
	MaxMemory int64
	// Workers is how many tests run at once; 0 means one per core.
	Workers int
	// ValidateResponses makes a case fail when an answer (a fixture's or,
	// with Live, a service's) breaks its operation's description in the
	// snapshot's APIs.
	// A test file's validateResponses overrides it.
	ValidateResponses bool
	// Notice, when set, hears what the user should know that is no
	// test's outcome (a description that does not load), once.
	Notice func(message string)
	// Engine runs the cases: an engine's Run (restls test's, the
	// editor's: in process), or a server's behind its gate (/mcp's test
	// tool: each case admitted, audited and run in a child like any other
	// run); nil runs them in this process (the memory watchdog and Timeout
	// bound each), Workers at a time.
	Engine engine.RunFunc
	// Overlay holds the text of files open in an editor, read in place of
	// the file on disk: test files by their path as Paths names them, and
	// scripts by their path as a test file resolves its script: (its
	// directory joined with the value; the designer's unsaved script).
	Overlay map[string][]byte
	// MaxCases, when above zero, is how many cases Run may run: more
	// selected is an error (*TooManyCasesError), and nothing runs.
	MaxCases int
	// Write, when set, receives an updated test file in place of writing
	// it: the editor applies the change to its own buffer.
	Write func(path string, data []byte) error
	// Faults explores the error paths of every case whose file or case
	// does not say faults: false (restls test --faults); FaultsFail are
	// the verdicts that fail a case where its test file names none (nil:
	// crashed and misread). With Update, a case is added per escaped or
	// crashed outcome.
	Faults     bool
	FaultsFail []faults.Verdict
	// Coverage, when set, watches every case's run (restls test
	// --coverage): the program is instrumented, and the report carries
	// what the cases covered.
	Coverage *coverage.Collector
}

// TooManyCasesError is Run's error when more cases are selected than
// Options.MaxCases.
type TooManyCasesError struct{ Cases, Max int }

func (e *TooManyCasesError) Error() string {
	return fmt.Sprintf("%d cases are selected, above the limit of %d here: run them with restls test, or split the test files", e.Cases, e.Max)
}

// Outcome is one test's result.
type Outcome struct {
	File string `json:"file"`
	Name string `json:"name"`
	Line int    `json:"line"`
	// Passed is false when an expectation failed or the file is malformed.
	Passed bool `json:"passed"`
	// Updated reports that Update rewrote the test's expectations.
	Updated bool `json:"updated,omitempty"`
	// Failures say what differs, one readable paragraph each.
	Failures []string `json:"failures,omitempty"`
	// Mismatches are the result's differences by JSON path, as the
	// result paragraph of Failures lists them: for an editor that shows
	// expected and actual side by side.
	Mismatches []Mismatch `json:"mismatches,omitempty"`
	// Run is the case's run as every other door of a dry run answers it
	// (restls run --json, restls.runScript, POST /v1/run): result, error,
	// calls with their contract notes, logs, kind and mode, inline in the
	// JSON. Nil for a test file that could not be read.
	*RunResult
	DurationMs float64 `json:"durationMs"`
	// Script is the script's path, for the error's position.
	Script string `json:"script,omitempty"`

	// Faults is the exploration of the case's error paths, when its
	// file, the case or --faults asked; FaultsNote says why a case that
	// asked was not explored.
	Faults     *faults.Report `json:"faults,omitempty"`
	FaultsNote string         `json:"faultsNote,omitempty"`

	failed failed
	// contract are the failures of validateResponses, which Update
	// cannot mend: the fixture or the service must change; faults those
	// of the exploration, which it does not mend either.
	contract []string
	faults   []string
}

// RunResult is a dry run's result (dryrun.Result), as a test's outcome
// holds it.
type RunResult = scriptrt.Result

// Report is every test's outcome, files in order, cases in file order.
type Report struct {
	Outcomes []*Outcome `json:"tests"`
	Passed   int        `json:"passed"`
	Failed   int        `json:"failed"`
	// Updated counts the tests Update rewrote.
	Updated int `json:"updated,omitempty"`
	// Files counts the test files found.
	Files int `json:"files"`
	// Coverage is what the cases covered, when Options.Coverage asked.
	Coverage *coverage.Report `json:"coverage,omitempty"`
}

// ExitCode is 1 when a test failed, else 0.
func (r *Report) ExitCode() int {
	if r.Failed > 0 {
		return 1
	}
	return 0
}

// Run finds, runs and compares the tests. It fails only when a path does
// not exist or more cases than MaxCases are selected; a malformed test
// file is one failing test.
func Run(ctx context.Context, opts Options) (*Report, error) {
	paths, err := Find(opts.Paths)
	if err != nil {
		return nil, err
	}
	rep := &Report{Files: len(paths)}
	files := make([]*File, len(paths))
	type job struct {
		c   *Case
		out *Outcome
	}
	var jobs []job
	for i, p := range paths {
		f, err := load(p, opts.Overlay)
		if err != nil {
			// Every problem of the file at once, in file order; the
			// outcome is at the first.
			line := 0
			failures := []string{err.Error()}
			var es Errors
			if errors.As(err, &es) {
				failures = failures[:0]
				for _, e := range es {
					failures = append(failures, e.Error())
				}
			}
			if e := (*Error)(nil); errors.As(err, &e) {
				line = e.Line
			}
			o := &Outcome{File: p, Name: "(test file)", Line: line, Failures: failures}
			if opts.Run == nil || opts.Run.MatchString(p) {
				rep.Outcomes = append(rep.Outcomes, o)
			}
			continue
		}
		files[i] = f
		for _, c := range f.Cases {
			if opts.Run != nil && !opts.Run.MatchString(p+"/"+c.Name) {
				continue
			}
			o := &Outcome{File: p, Name: c.Name, Line: c.Line, Script: f.Script}
			rep.Outcomes = append(rep.Outcomes, o)
			jobs = append(jobs, job{c, o})
		}
	}
	if opts.MaxCases > 0 && len(jobs) > opts.MaxCases {
		return nil, &TooManyCasesError{Cases: len(jobs), Max: opts.MaxCases}
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	r := &runner{opts: opts, run: opts.Engine, snap: opts.Snapshot}
	if !r.snap.ChecksAnswers() {
		// One store of the answers' schemas for every case, its runs'
		// answer checks and its explorations, when no session lends one.
		r.snap = r.snap.WithAnswers(workspace.NewAnswerDescriptions(zap.NewNop(), 0), nil)
	}
	if r.run == nil {
		r.run = engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: workers}).Run
	}
	next := make(chan job)
	var wg sync.WaitGroup
	for range min(workers, max(len(jobs), 1)) {
		wg.Go(func() {
			for j := range next {
				r.runCase(ctx, j.c, j.out)
			}
		})
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	if opts.Update {
		byFile := map[*File][]job{}
		for _, j := range jobs {
			// A case that expects nothing passes whatever happens: it is
			// one waiting for its first expectations (docs/ci.md's
			// adoption workflow), so it is written too.
			// A case failing only by its error paths has no expectation
			// to rewrite: the cases of its outcomes are added below.
			if !j.out.Passed && len(j.out.Failures) > len(j.out.faults) || j.c.Expect.none() && j.out.RunResult != nil {
				byFile[j.c.file] = append(byFile[j.c.file], j)
			}
		}
		explored := map[*File][]*Outcome{}
		for _, j := range jobs {
			if j.out.Faults != nil {
				explored[j.c.file] = append(explored[j.c.file], j.out)
			}
		}
		for i, f := range files {
			if f == nil || len(byFile[f]) == 0 && len(explored[f]) == 0 {
				continue
			}
			for _, j := range byFile[f] {
				update(j.c, j.out)
			}
			added, err := appendFaultCases(f, explored[f])
			if err == nil && len(byFile[f]) == 0 && len(added) == 0 {
				continue
			}
			if err == nil {
				err = f.save(opts.Write)
			}
			if err != nil {
				for _, j := range byFile[f] {
					j.out.Failures = append(j.out.Failures, "update: "+err.Error())
				}
				for _, o := range explored[f] {
					o.Failures = append(o.Failures, "update: "+err.Error())
					o.Passed = false
				}
				continue
			}
			for _, j := range byFile[f] {
				j.out.Failures = append(slices.Clone(j.out.contract), j.out.faults...)
				j.out.Updated, j.out.Passed = true, len(j.out.Failures) == 0
			}
			for _, name := range added {
				rep.Outcomes = append(rep.Outcomes, &Outcome{File: paths[i], Name: name, Line: f.caseLine(name), Script: f.Script, Passed: true, Updated: true})
			}
		}
	}
	if opts.Coverage != nil {
		rep.Coverage = opts.Coverage.Report()
	}
	for _, o := range rep.Outcomes {
		if o.Passed {
			rep.Passed++
		} else {
			rep.Failed++
		}
		if o.Updated {
			rep.Updated++
		}
	}
	return rep, nil
}

// runner runs the cases of one Run.
type runner struct {
	opts Options
	run  engine.RunFunc
	snap workspace.Snapshot

	mu      sync.Mutex
	noticed map[string]bool
}

// notice passes msg on to Options.Notice once.
func (r *runner) notice(msg string) {
	if r.opts.Notice == nil {
		return
	}
	r.mu.Lock()
	seen := r.noticed[msg]
	if r.noticed == nil {
		r.noticed = map[string]bool{}
	}
	r.noticed[msg] = true
	r.mu.Unlock()
	if !seen {
		r.opts.Notice(msg)
	}
}

// runCase runs one case with its own runtime and fixtures through the run
// engine, as every other door runs a script, and compares.
func (r *runner) runCase(ctx context.Context, c *Case, out *Outcome) {
	opts := r.opts
	f := c.file
	req := c.Request(opts.Live)
	req.Limits = engine.Limits{Timeout: opts.Timeout, MaxMemory: opts.MaxMemory}
	// A live call's header blocks, as the other doors keep them; a
	// fixture's answer has none, and its timing phases are durations,
	// which no test compares: not worth a probe per call.
	req.Trace = opts.Live
	req.Notice = r.notice
	if opts.Coverage != nil {
		req.Observer, req.Statements = opts.Coverage.Observer(f.Script, f.Source), true
	}
	start := time.Now()
	res, err := r.run(ctx, r.snap, req)
	out.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		out.Failures = []string{"the case did not run: " + err.Error()}
		return
	}
	out.RunResult = res
	out.Failures, out.Mismatches, out.failed = compare(c, res)
	if f.validate != nil && *f.validate || f.validate == nil && opts.ValidateResponses {
		out.contract = contractFailures(res.Calls)
		if len(out.contract) > 0 && len(out.Failures) == 0 {
			out.Failures = append(out.contract, callsMade(res.Calls))
		} else if len(out.contract) > 0 {
			last := len(out.Failures) - 1 // calls made stay last
			out.Failures = append(append(out.Failures[:last:last], out.contract...), out.Failures[last])
		}
	}
	if spec := faultsSpec(c, opts); spec != nil {
		switch {
		case res.Error != nil:
			out.FaultsNote = "not explored: the case's run throws, and faults are explored from a run that succeeds"
		default:
			mock := req.Fixtures.Parsed
			if mock == nil {
				mock = &restclient.Mock{File: f.Path}
			}
			rep, fails, err := r.explore(ctx, c, spec, req, mock)
			if err != nil {
				fails = []string{"faults: not explored: " + err.Error()}
			}
			out.Faults, out.faults = rep, fails
			out.Failures = append(out.Failures, fails...)
		}
	}
	out.Passed = len(out.Failures) == 0
}
