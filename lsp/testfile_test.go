package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// fakeTests stands in for scripttest (cmd/restls injects the real one;
// its wiring is tested there): a file whose text holds "bogus:" is
// malformed at that key, every "- name: X" line is a case; Run and
// Update record what they were handed.
type fakeTests struct {
	mu   sync.Mutex
	reqs []TestRequest
}

func (f *fakeTests) outline(_ string, text []byte) TestOutline {
	var o TestOutline
	for i, line := range strings.Split(string(text), "\n") {
		if col := strings.Index(line, "bogus:"); col >= 0 {
			return TestOutline{Problem: &TestProblem{Line: i + 1, Column: col + 1, Message: `unknown key "bogus"; did you mean "calls"?`}}
		}
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "- name: "); ok {
			o.Cases = append(o.Cases, TestCase{Name: name, Line: i + 1})
		}
	}
	return o
}

func (f *fakeTests) tests() Tests {
	return Tests{
		Outline: f.outline,
		Run: func(_ context.Context, req TestRequest) (json.RawMessage, error) {
			f.mu.Lock()
			f.reqs = append(f.reqs, req)
			f.mu.Unlock()
			return json.RawMessage(`{"tests":[{"file":"t","name":"b","line":5,"passed":false,"failures":["result (expected vs actual, by JSON path):\n  $.n: expected 1, got 2"]}],"passed":0,"failed":1,"files":1}`), nil
		},
		Update: func(_ context.Context, req TestRequest) (*TestUpdate, error) {
			after := strings.Replace(string(req.Text), "result: 1", "result: 2", 1)
			return &TestUpdate{Before: req.Text, After: []byte(after), Report: json.RawMessage(`{"tests":[],"passed":0,"failed":0,"files":1}`)}, nil
		},
	}
}

const fakeTestFile = "script: s.js\ncases:\n  - name: a\n    result: 0\n  - name: b\n    result: 1\n"

// TestTestFileLensesAndDiagnostics: a test file open in any client gets
// "Run test" per case and "Run all" above a file of several, and the
// problem that makes restls test fail it as a diagnostic on the key.
func TestTestFileLensesAndDiagnostics(t *testing.T) {
	t.Parallel()
	ft := &fakeTests{}
	srv := newTestServer(t, Options{Tests: ft.tests()})
	c := connect(t, srv, clientOptions{})
	dir := t.TempDir()
	doc := uri.File(filepath.Join(dir, "orders.test.yaml"))
	c.open(doc, fakeTestFile)

	var lenses []protocol.CodeLens
	if err := c.call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: doc}}, &lenses); err != nil {
		t.Fatal(err)
	}
	type lens struct {
		Line  uint32
		Title string
		Args  string
	}
	var got []lens
	for _, l := range lenses {
		if l.Command.Command != CommandRunTests || len(l.Command.Arguments) != 1 {
			t.Fatalf("lens %+v", l)
		}
		got = append(got, lens{l.Range.Start.Line, l.Command.Title, string(l.Command.Arguments[0])})
	}
	want := []lens{
		{0, "Run all 2 tests", `{"uri":"` + string(doc) + `","name":"","show":true}`},
		{2, "Run test", `{"uri":"` + string(doc) + `","name":"a","show":true}`},
		{4, "Run test", `{"uri":"` + string(doc) + `","name":"b","show":true}`},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lenses (-want +got):\n%s", d)
	}
	if diags := c.diagnostics(doc, 1, 0); len(diags) != 0 {
		t.Errorf("a well-formed file has diagnostics: %+v", diags)
	}

	v := c.change(doc, &protocol.TextDocumentContentChangeWholeDocument{Text: "script: s.js\n  - name: a\n    bogus: 1\n"})
	diags := c.diagnostics(doc, v, 0)
	if len(diags) != 1 {
		t.Fatalf("diagnostics %+v", diags)
	}
	d := diags[0]
	wantRange := protocol.Range{Start: protocol.Position{Line: 2, Character: 4}, End: protocol.Position{Line: 2, Character: 9}}
	if d.Range != wantRange || d.Code != protocol.String("test-file") || d.Severity != protocol.DiagnosticSeverityError || d.Message != protocol.String(`unknown key "bogus"; did you mean "calls"?`) {
		t.Errorf("diagnostic %+v, want %v", d, wantRange)
	}
	if err := c.call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: doc}}, &lenses); err != nil || len(lenses) != 0 {
		t.Errorf("a malformed file has lenses %+v (%v)", lenses, err)
	}

	// A saved file may be one the test file names: it is diagnosed again.
	since := c.now()
	c.notify(protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(filepath.Join(dir, "s.js"))}})
	if diags := c.diagnostics(doc, v, since); len(diags) != 1 {
		t.Errorf("after a save: %+v", diags)
	}
}

// TestRunTestsCommand: restls.runTests hands the runner the editor's
// text, the case and the session's kind map, answers its report as it
// is, and with show tells the user; restls.updateTest answers the edit
// of the lines that change.
func TestRunTestsCommand(t *testing.T) {
	t.Parallel()
	ft := &fakeTests{}
	srv := newTestServer(t, Options{Tests: ft.tests()})
	c := connect(t, srv, clientOptions{initOptions: map[string]any{"restls": map[string]any{"scriptKinds": map[string]string{"**/h/*.js": "scriptTask"}}}})
	file := filepath.Join(t.TempDir(), "orders.test.yaml")
	doc := uri.File(file)
	c.open(doc, fakeTestFile)

	exec := func(cmd string, args any, res any) error {
		return c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: cmd, Arguments: []protocol.LSPAny{mustJSON(args)}}, res)
	}
	var rep json.RawMessage
	if err := exec(CommandRunTests, map[string]any{"uri": string(doc), "name": "b", "show": true}, &rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rep), `"failed":1`) {
		t.Errorf("report %s", rep)
	}
	ft.mu.Lock()
	req := ft.reqs[0]
	ft.mu.Unlock()
	if req.Path != file || string(req.Text) != fakeTestFile || req.Case != "b" || len(req.Snapshot.Kinds) != 1 || req.Snapshot.Config == nil {
		t.Errorf("request %+v", req)
	}
	c.waitFor("the run's message", func() bool {
		for _, m := range c.messages {
			if m.Message == "restls test orders.test.yaml: 0 passed, 1 failed\nFAIL b (line 5): result (expected vs actual, by JSON path): $.n: expected 1, got 2" && m.Type == protocol.MessageTypeWarning {
				return true
			}
		}
		return false
	})

	var up UpdateTestResult
	if err := exec(CommandUpdateTest, map[string]any{"uri": string(doc), "name": "b"}, &up); err != nil {
		t.Fatal(err)
	}
	if !up.Updated || up.Edit == nil || len(up.Edit.Changes[doc]) != 1 {
		t.Fatalf("update %+v", up)
	}
	e := up.Edit.Changes[doc][0]
	if e.NewText != "2" || e.Range.Start != (protocol.Position{Line: 5, Character: 12}) {
		t.Errorf("edit %+v", e)
	}
	if got := applyTextEdit(fakeTestFile, e); got != strings.Replace(fakeTestFile, "result: 1", "result: 2", 1) {
		t.Errorf("after the edit:\n%s", got)
	}

	for _, bad := range []map[string]any{{"uri": string(uri.File(filepath.Join(t.TempDir(), "x.js")))}, {}} {
		if err := exec(CommandRunTests, bad, &rep); err == nil || !strings.Contains(err.Error(), "test file") {
			t.Errorf("%v: %v", bad, err)
		}
	}
	if err := exec(CommandUpdateTest, map[string]any{"uri": string(doc)}, &up); err == nil || !strings.Contains(err.Error(), "{uri, name}") {
		t.Errorf("update without a name: %v", err)
	}
}

// TestRunTestsTakesTheUnsavedScript: restls.runTests hands the test
// runner the script as the editor holds it after an unsaved edit (the
// session's open documents, workspace.Session's overlay), so its cases
// run that text, not the file on disk; the run through the binary is
// cmd/restls's TestEditorTestsRunTheOpenScript.
func TestRunTestsTakesTheUnsavedScript(t *testing.T) {
	t.Parallel()
	ft := &fakeTests{}
	srv := newTestServer(t, Options{Tests: ft.tests()})
	c := connect(t, srv, clientOptions{})
	dir := t.TempDir()
	script := filepath.Join(dir, "s.js")
	if err := os.WriteFile(script, []byte("return 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "s.test.yaml")
	if err := os.WriteFile(file, []byte("script: s.js\nresult: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.open(uri.File(script), "return 1;\n")
	c.change(uri.File(script), &protocol.TextDocumentContentChangeWholeDocument{Text: "return 2;\n"})
	var rep json.RawMessage
	if err := c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: CommandRunTests, Arguments: []protocol.LSPAny{mustJSON(map[string]any{"uri": string(uri.File(file))})}}, &rep); err != nil {
		t.Fatal(err)
	}
	ft.mu.Lock()
	req := ft.reqs[len(ft.reqs)-1]
	ft.mu.Unlock()
	if got, ok := req.Open[script]; !ok || string(got) != "return 2;\n" {
		t.Errorf("the run's script %s: %q (open %v); want the unsaved edit %q", script, got, ok, "return 2;\n")
	}
	if req.Text != nil {
		t.Errorf("the test file is not open, yet the request has its text %q", req.Text)
	}
}

// TestTestFilesNeedFiles: a session that may not have the server read
// files (a designer's) gets no test lenses and may not run tests.
func TestTestFilesNeedFiles(t *testing.T) {
	t.Parallel()
	ft := &fakeTests{}
	srv := newTestServer(t, Options{Tests: ft.tests()})
	c := connect(t, srv, clientOptions{session: &SessionOptions{MayRun: true}})
	doc := uri.File(filepath.Join(t.TempDir(), "orders.test.yaml"))
	c.open(doc, fakeTestFile)
	var lenses []protocol.CodeLens
	if err := c.call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: doc}}, &lenses); err != nil || len(lenses) != 0 {
		t.Errorf("lenses %+v (%v)", lenses, err)
	}
	var rep json.RawMessage
	err := c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: CommandRunTests, Arguments: []protocol.LSPAny{mustJSON(map[string]any{"uri": string(doc)})}}, &rep)
	if err == nil || !strings.Contains(err.Error(), "not allowed") {
		t.Errorf("runTests: %v", err)
	}
	if len(ft.reqs) != 0 {
		t.Errorf("the runner ran: %+v", ft.reqs)
	}
}

// TestTextEdit: the edit covers what changed, never half a character
// or half of a CRLF.
func TestTextEdit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ before, after string }{
		{"a: 1\n", "a: 2\n"},
		{"a: é\n", "a: è\n"},
		{"a: 1\r\nb: 2\r\n", "a: 1\r\nc: 3\r\nb: 2\r\n"},
		{"x\r\n", "x\r\ny\r\n"},
		{"", "a"},
		{"abc", ""},
		{"aa", "aaa"},
	} {
		e, ok := textEdit([]byte(tc.before), []byte(tc.after))
		if !ok {
			t.Fatalf("%q: no edit", tc.before)
		}
		m := newMapper(tc.before)
		start, end := m.offset(e.Range.Start), m.offset(e.Range.End)
		if got := tc.before[:start] + e.NewText + tc.before[end:]; got != tc.after {
			t.Errorf("%q -> %q: edit %+v gives %q", tc.before, tc.after, e, got)
		}
	}
	if _, ok := textEdit([]byte("a"), []byte("a")); ok {
		t.Error("an edit for no change")
	}
}

// TestTestFileIsNoScript: the script features leave a test file alone,
// though its text would complete as a script's.
func TestTestFileIsNoScript(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, Options{Tests: (&fakeTests{}).tests()})
	c := connect(t, srv, clientOptions{initOptions: map[string]any{"restls": map[string]any{"configRoot": filepath.Join("..", "testdata", "config")}}})
	dir := t.TempDir()
	text := `api.rest.v1.get("`
	script, test := uri.File(filepath.Join(dir, "s.js")), uri.File(filepath.Join(dir, "s.test.yaml"))
	c.open(script, text)
	c.open(test, text)
	pos := protocol.Position{Line: 0, Character: uint32(len(text))}
	if l := c.completion(script, pos); len(l.Items) == 0 {
		t.Fatal("the script completes nothing: the test cannot tell")
	}
	if l := c.completion(test, pos); len(l.Items) != 0 {
		t.Errorf("the test file completes %d items", len(l.Items))
	}
	var h *protocol.Hover
	if err := c.call(protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: test}, Position: protocol.Position{Character: 5}}}, &h); err != nil || h != nil {
		t.Errorf("hover on the test file: %+v, %v", h, err)
	}
}

// FuzzTextEdit: the edit, applied to before, gives after, for any two
// texts (CRLF, multi-byte characters, invalid UTF-8).
func FuzzTextEdit(f *testing.F) {
	f.Add("a: 1\r\nb: é\r\n", "a: 1\r\nb: è\r\nc: 3\r\n")
	f.Add("x\ny", "x\r\ny")
	f.Add("\xff\xfe", "\xff")
	f.Fuzz(func(t *testing.T, before, after string) {
		e, ok := textEdit([]byte(before), []byte(after))
		if !ok {
			if before != after {
				t.Fatalf("no edit for %q -> %q", before, after)
			}
			return
		}
		m := newMapper(before)
		start, end := m.offset(e.Range.Start), m.offset(e.Range.End)
		if start > end {
			t.Fatalf("range %+v backwards", e.Range)
		}
		if got := before[:start] + e.NewText + before[end:]; got != after {
			t.Fatalf("%q -> %q: edit %+v gives %q", before, after, e, got)
		}
	})
}

// TestRunTestsTakesOnlyTheRootsOpenFiles: restls.runTests hands the
// runner the open files under the test file's root (input.RootOf), not
// every file an editor holds open.
func TestRunTestsTakesOnlyTheRootsOpenFiles(t *testing.T) {
	t.Parallel()
	ft := &fakeTests{}
	srv := newTestServer(t, Options{Tests: ft.tests()})
	c := connect(t, srv, clientOptions{})
	dir, elsewhere := t.TempDir(), t.TempDir()
	script := filepath.Join(dir, "s.js")
	file := filepath.Join(dir, "s.test.yaml")
	other := filepath.Join(elsewhere, "other.js")
	for p, text := range map[string]string{script: "return 1;\n", file: "script: s.js\nresult: 1\n", other: "return 3;\n"} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.open(uri.File(script), "return 1;\n")
	c.open(uri.File(other), "return 3;\n")
	var rep json.RawMessage
	if err := c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: CommandRunTests, Arguments: []protocol.LSPAny{mustJSON(map[string]any{"uri": string(uri.File(file))})}}, &rep); err != nil {
		t.Fatal(err)
	}
	ft.mu.Lock()
	req := ft.reqs[len(ft.reqs)-1]
	ft.mu.Unlock()
	if _, ok := req.Open[script]; !ok {
		t.Errorf("the run lacks its open script %s: %v", script, req.Open)
	}
	if _, ok := req.Open[other]; ok || len(req.Open) != 1 {
		t.Errorf("the run holds files outside %s: %v", dir, req.Open)
	}
}
