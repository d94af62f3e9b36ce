package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestCommandTable walks the command table: the server advertises
// exactly its commands, in its order; every command has a result type
// and, when it takes an argument, a struct whose unknown members and
// wrongly typed members answer InvalidParams naming the command and what
// it takes (or, for a member that decodes itself, what that member
// takes).
func TestCommandTable(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, Options{})
	c := connect(t, srv, clientOptions{skipInit: true})
	var res protocol.InitializeResult
	if err := c.call(protocol.MethodInitialize, &protocol.InitializeParams{Capabilities: defaultCaps()}, &res); err != nil {
		t.Fatal(err)
	}
	c.notify(protocol.MethodInitialized, &protocol.InitializedParams{})
	advertised := res.Capabilities.ExecuteCommandProvider.Commands
	var declared []string
	for _, d := range CommandTable {
		declared = append(declared, d.Name)
	}
	if !slices.Equal(advertised, declared) {
		t.Errorf("advertised commands %q, the table declares %q", advertised, declared)
	}

	doc, err := os.ReadFile("../docs/lsp.md")
	if err != nil {
		t.Fatal(err)
	}
	u := uri.File("/ws/a.js")
	c.open(u, "return 1")
	seen := map[string]bool{}
	for _, d := range CommandTable {
		t.Run(d.Name, func(t *testing.T) {
			if seen[d.Name] {
				t.Fatalf("%s is declared twice", d.Name)
			}
			seen[d.Name] = true
			if !strings.Contains(string(doc), "\n| `"+d.Name+"` |") {
				t.Errorf("docs/lsp.md's table of commands has no row for %s", d.Name)
			}
			if !strings.HasPrefix(d.Name, "restls.") || d.Takes == "" || d.Result == nil {
				t.Fatalf("declaration incomplete: %+v", d)
			}
			if d.Params == nil {
				return // takes no argument, ignores what it is sent
			}
			if d.Params.Kind() != reflect.Struct {
				t.Fatalf("params %s is not a struct", d.Params)
			}
			// The zero argument with one member more.
			var arg map[string]any
			zero, err := json.Marshal(reflect.New(d.Params).Interface())
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(zero, &arg); err != nil {
				t.Fatal(err)
			}
			arg["restlsNoSuchMember"] = true
			err = c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": d.Name, "arguments": []any{arg}}, nil)
			if codeOf(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), d.Name+" takes "+d.Takes) || !strings.Contains(err.Error(), "restlsNoSuchMember") {
				t.Errorf("an unknown member: %v", err)
			}
			// Every member with the wrong type.
			for k := range arg {
				arg[k] = []int{1}
			}
			delete(arg, "restlsNoSuchMember")
			err = c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": d.Name, "arguments": []any{arg}}, nil)
			if codeOf(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), d.Name+" takes "+d.Takes) && !strings.Contains(err.Error(), d.Name+": ") {
				t.Errorf("members of the wrong type: %v", err)
			}
			if !d.Optional {
				err = c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": d.Name, "arguments": []any{}}, nil)
				if codeOf(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), d.Name+" takes "+d.Takes) {
					t.Errorf("no argument: %v", err)
				}
			}
		})
	}
}

// TestCommandArgumentsStrict: a run whose argument has a member the
// command does not take is refused before anything runs, as is a second
// argument; the command's own checks still answer as before.
func TestCommandArgumentsStrict(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, Options{})
	c := connect(t, srv, clientOptions{})
	u := uri.File("/ws/a.js")
	c.open(u, "return 1")
	call := func(cmd string, args ...any) error {
		return c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": cmd, "arguments": args}, nil)
	}
	// "mocks" for "mock": once silently a live run.
	err := call(CommandRunScript, map[string]any{"uri": string(u), "mocks": "auto"})
	if codeOf(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), `restls.runScript takes one argument {uri, kind?, input?, mock?, record?} naming an open document: json: unknown field "mocks"`) {
		t.Errorf("runScript with mocks: %v", err)
	}
	err = call(CommandServices, map[string]any{"kind": "scriptService"}, map[string]any{"kind": "scriptTask"})
	if codeOf(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "not 2 arguments") {
		t.Errorf("services with two arguments: %v", err)
	}
	err = call(CommandServices, map[string]any{"kind": 3})
	if codeOf(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "restls.services takes {kind?, uri?}: json: cannot unmarshal number") {
		t.Errorf("services with a numeric kind: %v", err)
	}
	err = call(CommandUpdateTest, map[string]any{"uri": "file:///ws/a.restls-test.yml"})
	if codeOf(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "restls.updateTest takes one argument {uri, name}") {
		t.Errorf("updateTest without a name: %v", err)
	}
	// What took no argument still ignores what it is sent.
	if err := call(CommandServiceTree, map[string]any{"uri": string(u)}); err != nil {
		t.Errorf("serviceTree with a uri: %v", err)
	}
}

// TestParamsDecodedOnce: no handler in this package decodes its params
// or a command's argument itself; handler.go's typed (and request, built
// on it) and command.go's command do it once for all.
func TestParamsDecodedOnce(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	byHand := regexp.MustCompile(`decode(With)?\(req,|json\.Unmarshal\(arg\b|req\.Params\(\)`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "handler.go" {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if byHand.MatchString(line) {
				t.Errorf("%s:%d decodes by hand: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// TestCustomMethods: every restls/* method the server serves is declared
// in CustomMethods, and what it answers decodes strictly into the
// declared result type.
func TestCustomMethods(t *testing.T) {
	t.Parallel()
	declared := map[string]MethodDecl{}
	for _, d := range CustomMethods {
		if !strings.HasPrefix(d.Name, "restls/") || d.Params == nil || d.Params.Kind() != reflect.Struct {
			t.Errorf("declaration incomplete: %+v", d)
		}
		if d.FromServer == (d.handle != nil) || !d.FromServer && d.Result == nil {
			t.Errorf("%s: a method the client sends has a handler and a result type, one the server sends neither", d.Name)
		}
		declared[d.Name] = d
	}
	for name := range methods {
		if strings.HasPrefix(name, "restls/") && declared[name].handle == nil {
			t.Errorf("%s is served but not declared in CustomMethods", name)
		}
	}
	if _, ok := declared[MethodStatus]; !ok {
		t.Errorf("%s is not declared", MethodStatus)
	}

	srv := newTestServer(t, Options{})
	c := connect(t, srv, clientOptions{})
	u := uri.File("/ws/a.js")
	c.open(u, "return 1")
	var raw json.RawMessage
	if err := c.call(MethodDocumentInfo, &DocumentInfoParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &raw); err != nil {
		t.Fatal(err)
	}
	out := reflect.New(declared[MethodDocumentInfo].Result).Interface()
	if err := decodeStrict(raw, out); err != nil || reflect.ValueOf(out).Elem().IsNil() {
		t.Errorf("%s answered %s, which does not decode into %s: %v", MethodDocumentInfo, raw, declared[MethodDocumentInfo].Result, err)
	}
}
