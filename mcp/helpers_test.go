package mcp

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/workspace"
)

// testProject copies testdata/project to a temporary directory and
// returns its root (the directory of its restls.yaml).
func testProject(t testing.TB) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS("testdata/project")); err != nil {
		t.Fatal(err)
	}
	return dst
}

// testOptions are the options restls mcp would build for the project at
// root.
func testOptions(t testing.TB, root string) Options {
	t.Helper()
	p, err := workspace.LoadProject(filepath.Join(root, workspace.FileName))
	if err != nil || p.HasErrors() {
		t.Fatalf("project: %v %v", err, p.Diagnostics)
	}
	src, err := p.Sources("")
	if err != nil {
		t.Fatal(err)
	}
	var apis []workspace.APISource
	for _, id := range slices.Sorted(maps.Keys(p.OpenAPI)) {
		apis = append(apis, workspace.APISource{ServiceID: id, Location: p.OpenAPI[id]})
	}
	ws := workspace.NewSession(workspace.SessionOptions{Sources: src, Kinds: p.ScriptKinds, APIs: apis, Recorded: true, TimeLimits: p.TimeLimits, EngineLevel: p.EngineLevel})
	return Options{Session: ws, Root: root, ProjectFile: p.File, Version: "test"}
}

// connect serves o in memory and returns a client session on it.
func connect(t testing.TB, o Options) *sdk.ClientSession {
	t.Helper()
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ss, err := s.srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls tool with args and decodes its structured answer into out;
// it returns the result (IsError set for a tool's error).
func call(t testing.TB, cs *sdk.ClientSession, tool string, args any, out any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if out != nil && !res.IsError {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s: %v\n%s", tool, err, data)
		}
	}
	return res
}

// errorText is a tool error's message.
func errorText(res *sdk.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*sdk.TextContent); ok {
		return tc.Text
	}
	return ""
}

// remarshal decodes v's JSON into out.
func remarshal(t testing.TB, v, out any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatal(err)
	}
}
