package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"runtime"
	"time"

	"github.com/restls/restls/coverage"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/input"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/scripttest"
)

// editorTests serves the test files to the language server with
// scripttest: the same reading, runner and --update as restls test, on
// the editor's text. Each test's script is interrupted after timeout
// (serve's --run-timeout).
func editorTests(timeout time.Duration) lsp.Tests {
	// The cases run in this process, as restls test runs them, through
	// the run engine every door uses; one engine for every test file, so
	// the descriptions answers are held to load once.
	eng := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: editorTestRuns})
	return lsp.Tests{
		Outline: testOutline,
		Run: func(ctx context.Context, req lsp.TestRequest) (json.RawMessage, error) {
			rep, err := runEditorTests(ctx, eng, req, timeout, nil)
			if err != nil {
				return nil, err
			}
			return reportJSON(rep)
		},
		Update: func(ctx context.Context, req lsp.TestRequest) (*lsp.TestUpdate, error) {
			before := req.Text
			if before == nil {
				data, err := input.ReadFileIn(input.RootOf(req.Path), req.Path, input.TestFile)
				if err != nil {
					return nil, err
				}
				before, req.Text = data, data
			}
			after := before
			rep, err := runEditorTests(ctx, eng, req, timeout, func(_ string, data []byte) error {
				after = data
				return nil
			})
			if err != nil {
				return nil, err
			}
			raw, err := reportJSON(rep)
			if err != nil {
				return nil, err
			}
			return &lsp.TestUpdate{Before: before, After: after, Report: raw}, nil
		},
	}
}

// editorTestRuns is how many cases the editor's test runs may run at
// once, all test files together: each run takes one slot per core, so a
// few go side by side; a case past them fails as busy rather than wait.
var editorTestRuns = 8 * runtime.GOMAXPROCS(0)

// testOutline reads a test file as restls test does.
func testOutline(path string, text []byte) lsp.TestOutline {
	var f *scripttest.File
	var err error
	if text != nil {
		f, err = scripttest.Parse(path, text)
	} else {
		f, err = scripttest.Load(path)
	}
	if err != nil {
		var e *scripttest.Error
		if errors.As(err, &e) {
			return lsp.TestOutline{Problem: &lsp.TestProblem{Line: e.Line, Column: e.Column, Message: e.Msg}}
		}
		return lsp.TestOutline{Problem: &lsp.TestProblem{Line: 1, Message: err.Error()}}
	}
	out := lsp.TestOutline{Cases: make([]lsp.TestCase, 0, len(f.Cases))}
	for _, c := range f.Cases {
		out.Cases = append(out.Cases, lsp.TestCase{Name: c.Name, Line: c.Line})
	}
	return out
}

// runEditorTests runs req's file (or its one case) with scripttest.Run;
// write, when set, receives --update's text, which turns Update on.
func runEditorTests(ctx context.Context, eng *engine.Engine, req lsp.TestRequest, timeout time.Duration, write func(string, []byte) error) (*scripttest.Report, error) {
	if req.Snapshot.Config == nil {
		return nil, errors.New("no configuration is loaded")
	}
	path := filepath.Clean(req.Path)
	opts := scripttest.Options{Paths: []string{path}, Snapshot: req.Snapshot, Timeout: timeout,
		Update: write != nil, Write: write, Engine: eng.Run}
	// The editors' open texts, the scripts' among them, in place of the
	// disk, as the editor's runs read them; the test file's own text.
	opts.Overlay = maps.Clone(req.Open)
	if req.Text != nil {
		if opts.Overlay == nil {
			opts.Overlay = map[string][]byte{}
		}
		opts.Overlay[path] = req.Text
	}
	if req.Coverage {
		opts.Coverage = coverage.New()
	}
	if req.Case != "" {
		// The case, or the file itself when it is malformed (its one
		// outcome is named after no case).
		opts.Run = regexp.MustCompile("^" + regexp.QuoteMeta(path) + "(/" + regexp.QuoteMeta(req.Case) + ")?$")
	}
	rep, err := scripttest.Run(ctx, opts)
	if err != nil {
		return nil, err
	}
	if req.Case != "" && len(rep.Outcomes) == 0 {
		return nil, fmt.Errorf("%s has no case named %q", path, req.Case)
	}
	return rep, nil
}

// reportJSON is the report as restls test --json prints it.
func reportJSON(rep *scripttest.Report) (json.RawMessage, error) {
	var b bytes.Buffer
	if err := scripttest.WriteJSON(&b, rep); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b.Bytes()), nil
}
