package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestRenameKeepsTestsPassing: the CI example's tests pass; serviceIds
// renamed through the language server (the binary, as an editor drives
// it), the edits applied to the files, and restls test passes still:
// the fixtures files, the test files' inline fixtures and their expected
// calls follow the rename (issue 33: 5 of the 7 cases failed after it).
func TestRenameKeepsTestsPassing(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for _, d := range []string{"ci", "config"} {
		if err := os.CopyFS(filepath.Join(ws, d), os.DirFS(filepath.Join(repoRoot(t), "testdata", d))); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "restls.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "restls.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errs, rc := runProject(t, ws, nil, "test", "ci"); rc != 0 {
		t.Fatalf("before the rename: restls test ci exit %d\n%s%s", rc, out, errs)
	}

	cmd := restlsCommand(t, "serve", "--stdio")
	cmd.Dir = ws
	p := startServeCommand(t, cmd, func(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil })
	var init protocol.InitializeResult
	root := uri.File(ws)
	//lint:ignore SA1019 the test client sends rootUri as older clients do
	if err := p.call(t, protocol.MethodInitialize, &protocol.InitializeParams{RootURI: &root}, &init); err != nil {
		t.Fatalf("initialize: %v\n%s", err, p.stderr.String())
	}
	_ = p.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{})
	rename := func(script, id, to string) {
		t.Helper()
		path := filepath.Join(ws, filepath.FromSlash(script))
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		u := uri.File(path)
		_ = p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "javascript", Version: 1, Text: string(text)}})
		at := strings.Index(string(text), `"`+id+`"`) + 1
		line := strings.Count(string(text[:at]), "\n")
		col := at - (strings.LastIndexByte(string(text[:at]), '\n') + 1)
		var we protocol.WorkspaceEdit
		if err := p.call(t, protocol.MethodTextDocumentRename, &protocol.RenameParams{
			TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u},
				Position: protocol.Position{Line: uint32(line), Character: uint32(col)}},
			NewName: to,
		}, &we); err != nil {
			t.Fatalf("rename %s: %v\n%s", id, err, p.stderr.String())
		}
		var files []string
		for fu, edits := range we.Changes {
			applyFileEdits(t, fu.FsPath(), edits)
			rel, _ := filepath.Rel(ws, fu.FsPath())
			files = append(files, filepath.ToSlash(rel))
		}
		sort.Strings(files)
		t.Logf("rename %s to %s edited %s", id, to, strings.Join(files, ", "))
		_ = p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	}
	rename("ci/scripts/open-orders.js", "crm-customers", "crm-people")
	rename("ci/scripts/register-payment.js", "payments", "payments-v2")
	if out, errs, rc := runProject(t, ws, nil, "test", "ci"); rc != 0 {
		t.Errorf("after the rename: restls test ci exit %d\n%s%s", rc, out, errs)
	}
	var rep struct{ Passed, Failed int }
	out, _, _ := runProject(t, ws, nil, "test", "--json", "ci")
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Failed != 0 || rep.Passed < 7 {
		t.Errorf("after the rename: %d passed, %d failed (%v)\n%s", rep.Passed, rep.Failed, err, out)
	}
}

// applyFileEdits applies LSP text edits (UTF-16 positions) to a file.
func applyFileEdits(t *testing.T, path string, edits []protocol.TextEdit) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	offset := func(p protocol.Position) int {
		off := 0
		for range p.Line {
			i := strings.IndexByte(text[off:], '\n')
			if i < 0 {
				return len(text)
			}
			off += i + 1
		}
		for units := uint32(0); units < p.Character && off < len(text) && text[off] != '\n'; {
			r, size := utf8.DecodeRuneInString(text[off:])
			units++
			if r >= 0x10000 {
				units++
			}
			off += size
		}
		return off
	}
	sort.Slice(edits, func(i, j int) bool { return offset(edits[i].Range.Start) > offset(edits[j].Range.Start) })
	for _, e := range edits {
		text = text[:offset(e.Range.Start)] + e.NewText + text[offset(e.Range.End):]
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
