package lsp

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
)

// TestInlineValues (issue 35): after a dry run (restls.runScript, the
// real engine), textDocument/inlineValue answers the value each variable
// was last given, beside its name, masked as the preview masks (no
// configured credential), and the client is asked to refresh them; a
// line edited since the run shows nothing, the others keep theirs.
func TestInlineValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		// shop's password is s3cret-pw (encodedCredentials: user:s3cret-pw).
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.test/api\n      authorization:\n        type: basic\n        encodedCredentials: dXNlcjpzM2NyZXQtcHc=\n",
		"orders.mock.yaml":       "- {serviceId: shop, method: GET, path: orders/1, status: 200, body: {id: 1, state: paid}}\n",
	})
	script := "var order = api.rest.v1.get(\"shop\", {pathParams: [\"orders\", \"1\"]}, {}).body;\n" +
		"var state = order.state;\n" +
		"var pw = \"s3cret-pw\";\n" +
		"var n = 0;\n" +
		"for (var i = 0; i < 3; i++) { n += i; }\n" +
		"return state;"
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	srv := newTestServer(t, Options{PollInterval: -1, Runner: eng.Run, Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}})
	yes := true
	caps := defaultCaps()
	caps.Workspace.InlineValue = &protocol.InlineValueWorkspaceClientCapabilities{RefreshSupport: &yes}
	c := connect(t, srv, clientOptions{root: dir, caps: caps})
	u := uri.File(filepath.Join(dir, "orders.js"))
	c.open(u, script)

	values := func() string {
		t.Helper()
		var got []struct {
			Range protocol.Range `json:"range"`
			Text  string         `json:"text"`
		}
		whole := protocol.Range{End: protocol.Position{Line: 10}}
		if err := c.call(protocol.MethodTextDocumentInlineValue, map[string]any{"textDocument": map[string]any{"uri": string(u)}, "range": whole,
			"context": map[string]any{"frameId": 0, "stoppedLocation": whole}}, &got); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, v := range got {
			out = append(out, strings.Join([]string{itoa(int(v.Range.Start.Line)), itoa(int(v.Range.Start.Character)), itoa(int(v.Range.End.Character)), v.Text}, " "))
		}
		return strings.Join(out, "\n")
	}
	if got := values(); got != "" {
		t.Errorf("values before any run:\n%s", got)
	}
	var res struct{ Result string }
	if err := c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": CommandRunScript, "arguments": []any{map[string]any{"uri": string(u), "mock": filepath.Join(dir, "orders.mock.yaml")}}}, &res); err != nil {
		t.Fatal(err)
	}
	c.waitFor("workspace/inlineValue/refresh", func() bool { return c.valueRefreshes > 0 })
	want := "0 4 9 order = {id: 1, state: \"paid\"}\n" +
		"1 4 9 state = \"paid\"\n" +
		"2 4 6 pw = \"***\"\n" +
		"3 4 5 n = 0\n" +
		"4 9 10 i = 0\n" +
		"4 30 31 n = 3"
	got := values()
	if got != want {
		t.Errorf("values after the run:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(got, "s3cret-pw") || strings.Contains(got, "dXNlcjpzM2NyZXQtcHc=") {
		t.Errorf("a value shows the credential:\n%s", got)
	}
	// Line 2 edited: its value goes, the others stay.
	c.change(u, &protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: protocol.Position{Line: 1, Character: 22}, End: protocol.Position{Line: 1, Character: 22}}, Text: " || \"none\""})
	// values() asks the server, so not inside waitFor's condition: that
	// holds the client's lock, which the client's handler needs before the
	// answer can be read, and the test hung when a notification came
	// during the request (seen with the lsp tests run 8 at once).
	deadline := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		ch := c.changed
		c.mu.Unlock()
		if !strings.Contains(values(), "state = ") {
			break
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatal("timed out waiting for the edited line's value to go")
		}
	}
	if got := values(); !strings.Contains(got, "order = ") || !strings.Contains(got, "n = 3") {
		t.Errorf("values of the lines not edited went too:\n%s", got)
	}
}
