package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/internal/goldentest"
)

// faultsProject writes a project whose one service, crm, refuses
// connections (a run that reached it would say so), and the script and
// fixtures of restls faults' own test: a catch that reads e.status.code
// unchecked, which crashes on every failure without a status.
func faultsProject(t *testing.T) (dir, xml string) {
	t.Helper()
	dir = t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("services.xml", `<scriptservice><api serviceId="crm" url="http://127.0.0.1:1/api"/></scriptservice>`)
	write("orders.mock.yaml", "- {serviceId: crm, body: {name: Ada}}\n")
	return dir, filepath.Join(dir, "services.xml")
}

const ordersScript = `var customer;
try {
  customer = api.rest.v1.get("crm", {pathParams: ["customers", "42"]}, {}).body;
} catch (e) {
  if (e.status.code === 404) return null;
  throw e;
}
return customer.name;
`

func faultsServer(t *testing.T) *Server {
	return newTestServer(t, Options{Faults: FaultOptions{Run: engine.New(engine.Options{Isolation: engine.InProcess}).Run}})
}

// faultDiags waits for u's diagnostics published after since and
// returns its fault warnings once want of them are there.
func faultDiags(c *testClient, u uri.URI, since, want int) []protocol.Diagnostic {
	c.t.Helper()
	var out []protocol.Diagnostic
	c.waitFor(fmt.Sprintf("%d fault warnings on %s", want, u), func() bool {
		// p.seq counts the messages before it: the first one after
		// since has seq since. With <= the wait skipped it and timed out
		// when no message came after it (TestExploreFaultsEditor's
		// edit, with the lsp tests run 8 at once).
		p, ok := c.diags[u]
		if !ok || p.seq < since {
			return false
		}
		out = out[:0]
		for _, d := range p.params.Diagnostics {
			if d.Code == protocol.String(CodeFault) {
				out = append(out, d)
			}
		}
		return len(out) == want
	})
	return out
}

// TestFaultDiagsFirstMessage: faultDiags takes the publish that is the
// first message after since, with nothing after it (it waited for one
// more message before).
func TestFaultDiagsFirstMessage(t *testing.T) {
	t.Parallel()
	a, b := socketPair(t)
	c := &testClient{t: t, changed: make(chan struct{}), diags: map[uri.URI]published{}}
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(b), jsonrpc2.WithCodec(codec{}))
	c.conn.Go(context.Background(), c.handle)
	srv := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(a), jsonrpc2.WithCodec(codec{}))
	srv.Go(context.Background(), func(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil })
	t.Cleanup(func() {
		_ = srv.Close()
		_ = c.conn.Close()
	})
	u := uri.File(filepath.Join(t.TempDir(), "orders.js"))
	notify := func(p *protocol.PublishDiagnosticsParams) {
		t.Helper()
		if err := srv.Notify(context.Background(), protocol.MethodTextDocumentPublishDiagnostics, p); err != nil {
			t.Fatal(err)
		}
	}
	// One message before since: the wait must not take it.
	notify(&protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{{Code: protocol.String(CodeFault)}}})
	c.waitFor("the first message", func() bool { return c.seq == 1 })
	since := c.now()
	notify(&protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{}})
	if got := faultDiags(c, u, since, 0); len(got) != 0 {
		t.Errorf("fault warnings %v, want none", got)
	}
}

func showRange(r protocol.Range) string {
	return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line+1, r.Start.Character+1, r.End.Line+1, r.End.Character+1)
}

// TestExploreFaultsEditor drives the editor's surface of issue 36
// through a real JSON-RPC connection: restls.exploreFaults answers the
// table restls faults prints; then the call gets a "Faults" lens and a
// warning naming the outcomes that crash it; the warning's quick fixes
// add each crashing outcome as a case of orders.test.yaml, created
// first, appended to after; an edit of the script takes lenses and
// warnings away. Lens text, diagnostics and edits are golden.
func TestExploreFaultsEditor(t *testing.T) {
	t.Parallel()
	dir, xml := faultsProject(t)
	c := connect(t, faultsServer(t), clientOptions{initOptions: map[string]any{"restls": map[string]any{"serviceXml": xml}}})
	doc := uri.File(filepath.Join(dir, "orders.js"))
	c.open(doc, ordersScript)
	for _, d := range c.diagnostics(doc, 0, 0) {
		if d.Code == protocol.String(CodeFault) {
			t.Fatalf("a fault warning before any exploration: %v", d)
		}
	}
	var log strings.Builder
	since := c.now()
	var res FaultsResult
	if err := execCommand(c, CommandExploreFaults, map[string]any{"uri": string(doc)}, &res); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&log, "exploreFaults: %s | %s (fixtures %s, failing %d, cut %d)\n", res.Script, res.Summary, res.Fixtures, res.Failing, res.Cut)
	for _, s := range res.Sites {
		fmt.Fprintf(&log, "  line %d %s %s %q: %s\n", s.Line, s.Method, s.ServiceID, s.Path, s.Tally)
		for _, f := range s.Findings {
			fmt.Fprintf(&log, "    %-18s %-10s fails=%-5v %s\n", f.Outcome, f.Verdict, f.Fails, f.Detail)
		}
	}

	diags := faultDiags(c, doc, since, 1)
	log.WriteString("\ndiagnostics:\n")
	for _, d := range diags {
		fmt.Fprintf(&log, "  %s %v %s: %s\n", showRange(d.Range), d.Severity, d.Code, d.Message)
	}
	var lenses []protocol.CodeLens
	if err := c.call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: doc}}, &lenses); err != nil {
		t.Fatal(err)
	}
	log.WriteString("\ncode lenses:\n")
	for _, l := range lenses {
		fmt.Fprintf(&log, "  %s %q -> %s\n", showRange(l.Range), l.Command.Title, l.Command.Command)
	}

	testFile := filepath.Join(dir, "orders.test.yaml")
	actions := func() []*protocol.CodeAction {
		t.Helper()
		var raw []protocol.CodeAction
		err := c.call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: doc}, Range: diags[0].Range,
			Context: protocol.CodeActionContext{Diagnostics: diags},
		}, &raw)
		if err != nil {
			t.Fatal(err)
		}
		var out []*protocol.CodeAction
		for i := range raw {
			if strings.HasPrefix(raw[i].Title, "Add a test case") {
				out = append(out, &raw[i])
			}
		}
		return out
	}
	// apply writes an action's edit to the disk, as the editor would.
	apply := func(a *protocol.CodeAction) {
		t.Helper()
		fmt.Fprintf(&log, "\napply %q:\n", a.Title)
		old, _ := os.ReadFile(testFile)
		text := string(old)
		for _, ch := range a.Edit.DocumentChanges {
			switch e := ch.(type) {
			case *protocol.CreateFile:
				fmt.Fprintf(&log, "  create %s\n", filepath.Base(hostPaths.fsPath(e.URI)))
			case *protocol.TextDocumentEdit:
				for _, el := range e.Edits {
					text = el.(*protocol.TextEdit).NewText
				}
			}
		}
		for u, edits := range a.Edit.Changes {
			if hostPaths.fsPath(u) != testFile || len(edits) != 1 {
				t.Fatalf("an edit of %s: %v", u, edits)
			}
			m := newFileMapper(text)
			start, end := m.fromRange(edits[0].Range)
			fmt.Fprintf(&log, "  insert at %s\n", showRange(edits[0].Range))
			text = text[:start] + edits[0].NewText + text[end:]
		}
		if err := os.WriteFile(testFile, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	first := actions()
	log.WriteString("\nquick fixes:\n")
	for _, a := range first {
		fmt.Fprintf(&log, "  %s\n", a.Title)
	}
	if len(first) != 4 {
		t.Fatalf("%d quick fixes, want one per crashing outcome (4)", len(first))
	}
	apply(first[0])
	second := actions()
	if len(second) != 3 || slices.ContainsFunc(second, func(a *protocol.CodeAction) bool { return a.Title == first[0].Title }) {
		t.Errorf("after the first case is added, the quick fixes are %d, want the 3 others", len(second))
	}
	apply(second[0])
	data, err := os.ReadFile(testFile)
	if err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "faults", "orders.test.yaml"), string(data))

	// An edit: the exploration was of another text.
	since = c.now()
	c.change(doc, &protocol.TextDocumentContentChangeWholeDocument{Text: "// edited\n" + ordersScript})
	faultDiags(c, doc, since, 0)
	lenses = nil
	if err := c.call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: doc}}, &lenses); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&log, "\nafter an edit: %d lenses\n", len(lenses))
	goldentest.Check(t, filepath.Join("testdata", "golden", "faults", "editor.golden"), strings.ReplaceAll(log.String(), dir, "$DIR"))
}

// TestExploreFaultsRefusals: an inline fixtures document (the
// designer's Mocks tab) is what a session that may not read files
// explores from; without one its run has no fixtures and the answer says
// the run must succeed first; a session that may not run is refused; a
// server without an exploration engine says so; an unknown outcome is
// named.
func TestExploreFaultsRefusals(t *testing.T) {
	t.Parallel()
	dir, xml := faultsProject(t)
	settings := map[string]any{"restls": map[string]any{"serviceXml": xml}}
	designer := &SessionOptions{MayRun: true, Refused: "the designer may not"}
	c := connect(t, faultsServer(t), clientOptions{initOptions: settings, session: designer})
	doc := uri.File(filepath.Join(dir, "orders.js"))
	c.open(doc, ordersScript)
	arg := map[string]any{"uri": string(doc)}
	var res FaultsResult
	err := execCommand(c, CommandExploreFaults, arg, &res)
	if err == nil || !strings.Contains(err.Error(), "it had no fixtures: give them in the Mocks tab") || !strings.Contains(err.Error(), "explored from a run that succeeds") {
		t.Errorf("a designer session without mock read the file beside the script: %v", err)
	}
	arg["mock"] = "- {serviceId: crm, body: {name: Ada}}\n"
	arg["outcomes"] = []string{"404", "read-timeout"}
	if err := execCommand(c, CommandExploreFaults, arg, &res); err != nil || res.Runs != 2 || res.Fixtures != "the Mocks tab" || res.Failing != 1 {
		t.Errorf("with the Mocks tab's fixtures: %+v, %v", res, err)
	}
	arg["outcomes"] = []string{"timeout"}
	if err := execCommand(c, CommandExploreFaults, arg, &res); err == nil || !strings.Contains(err.Error(), `outcome "timeout": use one of 500, 404`) {
		t.Errorf("an unknown outcome: %v", err)
	}
	arg["outcomes"], arg["mock"] = nil, "- {serviceId: crm, status: [1]}\n"
	if err := execCommand(c, CommandExploreFaults, arg, &res); err == nil || !strings.Contains(err.Error(), "the Mocks tab") {
		t.Errorf("fixtures that do not parse: %v", err)
	}

	viewer := connect(t, faultsServer(t), clientOptions{initOptions: settings, session: &SessionOptions{Refused: "a viewer may not run scripts"}})
	viewer.open(doc, ordersScript)
	if err := execCommand(viewer, CommandExploreFaults, map[string]any{"uri": string(doc)}, &res); err == nil || !strings.Contains(err.Error(), "a viewer may not run scripts") {
		t.Errorf("a session that may not run: %v", err)
	}
	bare := connect(t, newTestServer(t, Options{}), clientOptions{initOptions: settings})
	bare.open(doc, ordersScript)
	if err := execCommand(bare, CommandExploreFaults, map[string]any{"uri": string(doc)}, &res); err == nil || !strings.Contains(err.Error(), ErrNoFaults.Error()) {
		t.Errorf("a server without Faults: %v", err)
	}
}

// TestFaultQuickFixBeforePublish: the quick fixes follow the exploration
// at once, whether or not its warnings were published yet (a code action
// asked as the command returns, with publishing held back).
func TestFaultQuickFixBeforePublish(t *testing.T) {
	t.Parallel()
	dir, xml := faultsProject(t)
	srv := newTestServer(t, Options{Faults: FaultOptions{Run: engine.New(engine.Options{Isolation: engine.InProcess}).Run}, DiagnosticsDelay: time.Hour})
	c := connect(t, srv, clientOptions{initOptions: map[string]any{"restls": map[string]any{"serviceXml": xml}}})
	doc := uri.File(filepath.Join(dir, "orders.js"))
	c.open(doc, ordersScript)
	var res FaultsResult
	if err := execCommand(c, CommandExploreFaults, map[string]any{"uri": string(doc), "outcomes": []string{"404", "read-timeout"}}, &res); err != nil {
		t.Fatal(err)
	}
	at := protocol.Position{Line: 2, Character: 27} // in "get"
	var raw []protocol.CodeAction
	if err := c.call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: doc}, Range: protocol.Range{Start: at, End: at},
	}, &raw); err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, a := range raw {
		titles = append(titles, a.Title)
	}
	if !slices.Contains(titles, "Add a test case: GET crm answers read-timeout (orders.test.yaml)") {
		t.Errorf("code actions %q", titles)
	}
}
