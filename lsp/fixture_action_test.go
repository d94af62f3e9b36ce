package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

const actionDescription = `{"openapi":"3.0.3","info":{"title":"Shop","version":"1"},"paths":{"/orders/{id}":{"get":{
	"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","required":["id","state"],"properties":{
		"id":{"type":"integer","minimum":1},"state":{"type":"string","enum":["open","shipped"]}}}}}}}}}}}`

// fixtureActionsAt returns the raw code actions titled "Add a fixture
// for this call" at pos.
func fixtureActionsAt(t testing.TB, c *testClient, u uri.URI, pos protocol.Position) []map[string]any {
	t.Helper()
	var raw []json.RawMessage
	if err := c.call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: protocol.Range{Start: pos, End: pos}}, &raw); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, r := range raw {
		var a map[string]any
		if err := json.Unmarshal(r, &a); err != nil {
			t.Fatal(err)
		}
		if a["title"] == addFixtureTitle {
			out = append(out, a)
		}
	}
	return out
}

// TestAddFixtureAction (issue 27): on a call no fixture answers, "Add a
// fixture for this call" creates NAME.mock.yaml with the fixture built
// from the description; once the file answers the call, the action is
// gone; a call whose serviceId has no description gets none; with the
// file there, the action edits it, keeping what it holds.
func TestAddFixtureAction(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.test/api\n    - serviceId: other\n      url: https://other.example.test\n",
		"shop.json":              actionDescription,
	})
	src := []workspace.APISource{{ServiceID: "shop", Location: filepath.Join(dir, "shop.json")}}
	srv := newTestServer(t, Options{PollInterval: -1, Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}, OpenAPI: src})
	srv.ws.AnswerDescriptions().SetDelay(0)
	srv.ws.Descriptions().SetDelay(0) // nothing loads after the test
	c := connect(t, srv, clientOptions{root: dir})
	script := filepath.Join(dir, "orders.js")
	u := uri.File(script)
	text := "var id = context.input.id;\nvar o = api.rest.v1.get(\"shop\", {pathParams: [\"orders\", id]}, {});\napi.rest.v1.get(\"other\", {pathParams: [\"x\"]}, {});\n"
	c.open(u, text)
	for _, store := range []*workspace.Descriptions{srv.ws.AnswerDescriptions(), srv.ws.Descriptions()} {
		if err := store.Wait(context.Background(), src); err != nil {
			t.Fatal(err)
		}
	}
	m := newMapper(text)
	onShop := m.position(strings.Index(text, "pathParams"))
	acts := fixtureActionsAt(t, c, u, onShop)
	if len(acts) != 1 {
		t.Fatalf("actions %v, want one", acts)
	}
	edit, _ := json.Marshal(acts[0]["edit"])
	var we struct {
		DocumentChanges []struct {
			Kind, URI    string
			TextDocument struct{ URI string }
			Edits        []struct{ NewText string }
		}
	}
	if err := json.Unmarshal(edit, &we); err != nil {
		t.Fatal(err)
	}
	mock := uri.File(filepath.Join(dir, "orders.mock.yaml"))
	if len(we.DocumentChanges) != 2 || we.DocumentChanges[0].Kind != "create" || we.DocumentChanges[0].URI != string(mock) ||
		we.DocumentChanges[1].TextDocument.URI != string(mock) || len(we.DocumentChanges[1].Edits) != 1 {
		t.Fatalf("edit %s", edit)
	}
	created := we.DocumentChanges[1].Edits[0].NewText
	if want := "fixtures:\n- serviceId: shop\n  method: GET\n  path: orders/*\n  status: 200\n  body:\n    id: 1\n    state: open\n"; !strings.HasSuffix(created, want) {
		t.Errorf("the new file:\n%s\nwant it to end with\n%s", created, want)
	}
	if got := fixtureActionsAt(t, c, u, m.position(strings.Index(text, "\"other\""))); len(got) != 0 {
		t.Errorf("a call without a description got %v", got)
	}
	// Applied: the call has its fixture, and the action goes.
	if err := os.WriteFile(filepath.Join(dir, "orders.mock.yaml"), []byte(created), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := fixtureActionsAt(t, c, u, onShop); len(got) != 0 {
		t.Errorf("a call the file answers got %v", got)
	}
	// A file that answers other calls: edited in place, its fixture kept.
	if err := os.WriteFile(filepath.Join(dir, "orders.mock.yaml"), []byte("# mine\n- {serviceId: other, method: GET, path: x}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := fixtureActionsAt(t, c, u, onShop)
	if len(got) != 1 {
		t.Fatalf("actions %v", got)
	}
	edit, _ = json.Marshal(got[0]["edit"])
	var ch struct {
		Changes map[string][]protocol.TextEdit
	}
	if err := json.Unmarshal(edit, &ch); err != nil || len(ch.Changes[string(mock)]) != 1 {
		t.Fatalf("edit %s (%v)", edit, err)
	}
	// An insertion at the end (issue 33, point 12), not the file again.
	te := ch.Changes[string(mock)][0]
	if end := (protocol.Position{Line: 2}); te.Range.Start != end || te.Range.End != end || !strings.HasPrefix(te.NewText, "- serviceId: shop\n") {
		t.Errorf("edit %+v, want the fixture inserted at the end", te)
	}
}

// largeFixtureFile is a fixtures file of about size bytes: a top-level
// list of fixtures, each on five lines, whose state the description's
// enum does not allow.
func largeFixtureFile(size int) string {
	var b strings.Builder
	b.Grow(size + 200)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "- serviceId: shop\n  method: GET\n  path: orders/%d\n  status: 200\n  body: {id: %d, state: lost, note: \"a note to make the fixture longer\"}\n", i, i)
	}
	return b.String()
}

// TestAddFixtureActionLargeFile (issue 33, point 12): beside a fixtures
// file of 15.5 MB (under the 16 MiB limit) "Add a fixture for this call"
// parsed and rewrote it (24 s, 1.5 GiB) and sent it whole as the edit,
// with every codeAction request. The edit is now an insertion of the new
// fixture at the end of the file, and the request allocates a few times
// the file, not a hundred (the file is not parsed above 1 MiB).
func TestAddFixtureActionLargeFile(t *testing.T) {
	// Not in parallel: it measures this process's memory, which tests beside it would add to.
	dir := t.TempDir()
	// 2 MB, twice maxCheckedFixtureFile: the fixture diagnostics of
	// the open script still parse the file whole, which a larger file
	// makes slow. At 15.5 MB the request took 26-56 ms and 33 MiB
	// (before: 24 s, 1.5 GiB).
	big := largeFixtureFile(2_000_000)
	writeFiles(t, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.test/api\n",
		"shop.json":              actionDescription,
		"orders.mock.yaml":       big,
	})
	src := []workspace.APISource{{ServiceID: "shop", Location: filepath.Join(dir, "shop.json")}}
	srv := newTestServer(t, Options{PollInterval: -1, Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}, OpenAPI: src})
	srv.ws.AnswerDescriptions().SetDelay(0)
	srv.ws.Descriptions().SetDelay(0)
	c := connect(t, srv, clientOptions{root: dir})
	u := uri.File(filepath.Join(dir, "orders.js"))
	text := "var id = context.input.id;\nvar o = api.rest.v1.get(\"shop\", {pathParams: [\"orders\", id]}, {});\n"
	c.open(u, text)
	for _, store := range []*workspace.Descriptions{srv.ws.AnswerDescriptions(), srv.ws.Descriptions()} {
		if err := store.Wait(context.Background(), src); err != nil {
			t.Fatal(err)
		}
	}
	// The open script's fixture diagnostics parse the file (state "lost"
	// breaks the enum): done before the request is measured, which
	// counts the process's allocations.
	fx := uri.File(filepath.Join(dir, "orders.mock.yaml"))
	c.waitFor("fixture diagnostics", func() bool { p, ok := c.diags[fx]; return ok && len(p.params.Diagnostics) > 0 })
	pos := newMapper(text).position(strings.Index(text, "pathParams"))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	acts := fixtureActionsAt(t, c, u, pos)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%v, %d MiB allocated", took, alloc>>20)
	if len(acts) != 1 {
		t.Fatalf("actions %v, want one", acts)
	}
	raw, _ := json.Marshal(acts[0]["edit"])
	var we protocol.WorkspaceEdit
	if err := json.Unmarshal(raw, &we); err != nil {
		t.Fatal(err)
	}
	edits := we.Changes[uri.File(filepath.Join(dir, "orders.mock.yaml"))]
	end := newMapper(big).position(len(big))
	if len(raw) > 2048 || len(edits) != 1 || edits[0].Range.Start != end || edits[0].Range.End != end || !strings.HasPrefix(edits[0].NewText, "- serviceId: shop\n") {
		t.Fatalf("the edit is %d bytes: %.300s; want one insertion of the fixture at %v", len(raw), raw, end)
	}
	if limit := uint64(8 * len(big)); alloc > limit {
		t.Errorf("the request allocated %d MiB, want under %d MiB", alloc>>20, limit>>20)
	}
}

// TestChangedRange: the whole rewrite's edit (a JSON file, a YAML list
// that does not end its file) is the changed part only, on rune bounds.
func TestChangedRange(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ old, new, text string }{
		{"[\n  {\"a\": 1}\n]\n", "[\n  {\"a\": 1},\n  {\"b\": 2}\n]\n", ",\n  {\"b\": 2}"},
		{"fixtures:\n- a\nmore: é\n", "fixtures:\n- a\n- b\nmore: é\n", "- b\n"},
		{"é1", "è1", "è"},
		{"", "x", "x"},
		{"- a\n", "- a\n- b\n", "- b\n"},
	} {
		te := changedRange([]byte(tc.old), []byte(tc.new))
		m := newMapper(tc.old)
		start, end := m.offset(te.Range.Start), m.offset(te.Range.End)
		if got := tc.old[:start] + te.NewText + tc.old[end:]; got != tc.new || te.NewText != tc.text {
			t.Errorf("%q -> %q: edit %+v gives %q", tc.old, tc.new, te, got)
		}
	}
}

// TestEndPosition: the end of a fixture file under every line break the
// protocol knows, so "Add a fixture" inserts at the file's real end; a
// lone \r was not one (the insertion went to line 0).
func TestEndPosition(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"", "a", "a\n", "a\nb", "a\r\nb\r\n", "a\rb\rcé", "a\r", "\r\n\r", "x\n\ry"} {
		m := newMapper(text)
		if got, want := endPosition([]byte(text)), m.position(len(text)); got != want {
			t.Errorf("endPosition(%q) = %+v, want %+v", text, got, want)
		}
	}
}
