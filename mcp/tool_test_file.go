package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/input"
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
	rep, err := scripttest.Run(ctx, scripttest.Options{Paths: []string{abs}, Snapshot: snap.Config, Kinds: snap.Kinds, APIs: snap.APIs, Engine: s.o.Tests, Workers: 1})
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
