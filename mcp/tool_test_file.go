package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/scripttest"
	"github.com/restls/restls/workspace"
)

// TestIn is the test tool's input.
type TestIn struct {
	Path        string `json:"path" jsonschema:"the test file (NAME.test.yaml, restls://schema/test.schema.json), relative to the project root"`
	Environment string `json:"environment,omitempty" jsonschema:"the project file's environment (default its defaultEnvironment)"`
}

// TestOut is the test tool's answer: restls test --json's report.
type TestOut struct {
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	// Tests are each case's outcome: passed, the failures in words and
	// by JSON path, and its run (result, error, calls, logs).
	Tests any `json:"tests"`
}

func (s *Server) testFile(ctx context.Context, _ *sdk.CallToolRequest, in TestIn) (*sdk.CallToolResult, TestOut, error) {
	out := TestOut{Tests: []any{}}
	if !strings.HasSuffix(in.Path, workspace.TestFileSuffix) {
		return nil, out, fmt.Errorf("path %q is not a test file: its name ends in %s", cut(in.Path, 200), workspace.TestFileSuffix)
	}
	if len(in.Path) > maxPath {
		return nil, out, fmt.Errorf("the path is %d bytes, above the %d limit", len(in.Path), maxPath)
	}
	abs, err := input.Inside(s.o.Root, s.abs(in.Path), input.TestFile)
	if err != nil {
		if errors.Is(err, input.ErrOutside) {
			return nil, out, s.errOutside(in.Path)
		}
		return nil, out, fmt.Errorf("%s: %v", in.Path, unwrapPath(err))
	}
	snap, err := s.snapshot(ctx, in.Environment)
	if err != nil {
		return nil, out, err
	}
	// A case the runner refuses (on /mcp the gate: a role that may not
	// run, a server that stops, every run slot taken) ends the call with
	// the refusal: it is no outcome of the test file.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var refused error
	run := func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		if err := ctx.Err(); err != nil {
			return nil, err // refused before: the next cases are not tried
		}
		res, err := s.o.Tests(ctx, snap, req)
		if err != nil && !caseError(err) {
			mu.Lock()
			if refused == nil {
				refused = err
			}
			mu.Unlock()
			cancel()
		}
		return res, err
	}
	rep, err := scripttest.Run(ctx, scripttest.Options{Paths: []string{abs}, Snapshot: snap, Engine: run, Workers: 1})
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && (refused == nil || errors.Is(refused, context.DeadlineExceeded)) {
		return nil, out, fmt.Errorf("the test file's cases took longer than a call may (%v): split the test file, or run it with restls test, which has no such limit", s.o.Limits.Time)
	}
	if refused != nil {
		return nil, out, fmt.Errorf("the test file's cases did not run: %w", refused)
	}
	if err != nil {
		return nil, out, err
	}
	for _, o := range rep.Outcomes {
		o.File = s.rel(o.File)
		o.Script = s.rel(o.Script)
	}
	out.Passed, out.Failed, out.Tests = rep.Passed, rep.Failed, rep.Outcomes
	return nil, out, nil
}

// caseError is a run's error that is its case's failing outcome: its
// fixtures or its configuration, which the test file or the project
// must mend.
func caseError(err error) bool {
	var fe *engine.FixturesError
	var ce *engine.ConfigError
	return errors.As(err, &fe) || errors.As(err, &ce)
}
