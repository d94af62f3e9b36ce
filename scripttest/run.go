package scripttest

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"runtime"
	"sync"
	"time"

	"github.com/restls/restls/config"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/restclient"
)

// Options say which tests to run and how.
type Options struct {
	// Paths are test files and directories to search; none means ".".
	Paths []string
	// Run, when set, selects the tests whose "FILE/NAME" matches.
	Run *regexp.Regexp
	// Snapshot is the configuration the scripts call services from.
	Snapshot *config.Snapshot
	// Live sends the calls no fixture answers to the network; otherwise
	// they fail with no-fixture.
	Live bool
	// Update rewrites the expectations of failing tests, and of tests
	// that expect nothing yet, with the actual outcome.
	Update bool
	// Timeout bounds each test's run; 0 means the runtime's default.
	Timeout time.Duration
	// Workers is how many tests run at once; 0 means one per core.
	Workers int
	// ValidateResponses checks every answer (a fixture's or, with Live,
	// a service's) with CheckAnswer: one that breaks its operation's
	// description fails the case. A test file's validateResponses
	// overrides it.
	ValidateResponses bool
	// CheckAnswer returns how a call's answer breaks the description of
	// its operation (workspace.CheckCall); nil checks nothing.
	CheckAnswer func(config.Kind, *restclient.Call) []restclient.ContractNote
	// Kinds is the kind map (restls.yaml's scriptKinds) for scripts whose
	// test file names no kind: decided as check and the editor decide.
	Kinds config.KindMap
	// Overlay holds the text of test files open in an editor, by their
	// path as Paths names them: read in place of the file on disk.
	Overlay map[string][]byte
	// Write, when set, receives an updated test file in place of writing
	// it: the editor applies the change to its own buffer.
	Write func(path string, data []byte) error
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
	Mismatches []Mismatch            `json:"mismatches,omitempty"`
	Result     json.RawMessage       `json:"result,omitempty"`
	Error      *scriptrt.ScriptError `json:"error,omitempty"`
	Calls      []*restclient.Call    `json:"calls,omitempty"`
	DurationMs float64               `json:"durationMs"`
	// Script is the script's path, for the error's position.
	Script string `json:"script,omitempty"`

	res    *scriptrt.Result
	failed failed
	// contract are the failures of validateResponses, which Update
	// cannot mend: the fixture or the service must change.
	contract []string
}

// Report is every test's outcome, files in order, cases in file order.
type Report struct {
	Outcomes []*Outcome `json:"tests"`
	Passed   int        `json:"passed"`
	Failed   int        `json:"failed"`
	// Updated counts the tests Update rewrote.
	Updated int `json:"updated,omitempty"`
	// Files counts the test files found.
	Files int `json:"files"`
}

// ExitCode is 1 when a test failed, else 0.
func (r *Report) ExitCode() int {
	if r.Failed > 0 {
		return 1
	}
	return 0
}

// Run finds, runs and compares the tests. It fails only when a path does
// not exist; a malformed test file is one failing test.
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
		var f *File
		if text, ok := opts.Overlay[p]; ok {
			f, err = Parse(p, text)
		} else {
			f, err = Load(p)
		}
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
		if !f.kindNamed && len(opts.Kinds) > 0 {
			file := f.Script
			if abs, err := filepath.Abs(file); err == nil {
				file = abs // check and the editor match kind globs on absolute paths
			}
			f.Kind = opts.Kinds.KindOf(file, f.Source)
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
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan job)
	var wg sync.WaitGroup
	for range min(workers, max(len(jobs), 1)) {
		wg.Go(func() {
			for j := range next {
				runCase(ctx, j.c, j.out, opts)
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
			if !j.out.Passed || j.c.Expect.none() && j.out.res != nil {
				byFile[j.c.file] = append(byFile[j.c.file], j)
			}
		}
		for _, f := range files {
			if f == nil || len(byFile[f]) == 0 {
				continue
			}
			for _, j := range byFile[f] {
				update(j.c, j.out)
			}
			if err := f.save(opts.Write); err != nil {
				for _, j := range byFile[f] {
					j.out.Failures = append(j.out.Failures, "update: "+err.Error())
				}
				continue
			}
			for _, j := range byFile[f] {
				j.out.Updated, j.out.Passed, j.out.Failures = true, len(j.out.contract) == 0, j.out.contract
			}
		}
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

// runCase runs one case with its own runtime and fixtures and compares.
func runCase(ctx context.Context, c *Case, out *Outcome, opts Options) {
	f := c.file
	mock := &restclient.Mock{File: f.mockFile, Fixtures: append(append([]*restclient.Fixture(nil), c.fixtures...), f.fixtures...),
		Advice: " to the case's or the file's fixtures, or run restls test with --live to call the services"}
	if len(c.fixtures) > 0 || mock.File == "" {
		mock.File = f.Path
	}
	ro := scriptrt.Options{
		Source:   f.Source,
		Filename: f.Script,
		Kind:     f.Kind,
		Registry: opts.Snapshot.For(f.Kind),
		Mock:     mock,
		Input:    c.Input,
		Timeout:  opts.Timeout,
	}
	if opts.Live {
		ro.Client = restclient.New(restclient.Options{MaxResponseBytes: restclient.DefaultMaxResponseBytes, Mock: mock, MockPassThrough: true})
	}
	start := time.Now()
	res := scriptrt.Run(ctx, ro)
	out.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	out.Result, out.Error, out.Calls = res.Result, res.Error, res.Calls
	out.Failures, out.Mismatches, out.failed = compare(c, res)
	if f.validate != nil && *f.validate || f.validate == nil && opts.ValidateResponses {
		out.contract = contractFailures(f.Kind, res.Calls, opts.CheckAnswer)
		if len(out.contract) > 0 && len(out.Failures) == 0 {
			out.Failures = append(out.contract, callsMade(res.Calls))
		} else if len(out.contract) > 0 {
			last := len(out.Failures) - 1 // calls made stay last
			out.Failures = append(append(out.Failures[:last:last], out.contract...), out.Failures[last])
		}
	}
	out.res = res
	out.Passed = len(out.Failures) == 0
}
