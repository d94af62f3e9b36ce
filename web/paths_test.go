package web

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/workspace"
)

// TestRelativeTo: a path under the root is shown relative to it, any
// other by its file name only.
func TestRelativeTo(t *testing.T) {
	t.Parallel()
	show := workspace.RelativeTo("/etc/restls")
	for in, want := range map[string]string{
		"/etc/restls/application.yml":                       "application.yml",
		"/etc/restls/script-code-config/script-service.xml": "script-code-config/script-service.xml",
		"/etc/restls":                 ".",
		"/etc/restls-other/x.yml":     "x.yml",
		"/etc/restls/../passwd":       "passwd",
		"/srv/other/application.yml":  "application.yml",
		"/etc/restls/a/../b/c.yml":    "b/c.yml",
		"/etc/restls/..hidden/c.yml":  "..hidden/c.yml",
		"/etc/restls/sub/../../x.yml": "x.yml",
	} {
		if got := show(in); got != want {
			t.Errorf("workspace.RelativeTo(/etc/restls)(%q) = %q, want %q", in, got, want)
		}
	}
	if got := workspace.RelativeTo("")("/etc/restls/application.yml"); got != "application.yml" {
		t.Errorf("without a root: %q", got)
	}
	// Relative paths (a root given as --config-root cfg) are read against
	// the working directory, as the files are opened.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel := workspace.RelativeTo("cfg")
	for in, want := range map[string]string{
		"cfg/application.yml":                       "application.yml",
		"./cfg/sub/x.xml":                           "sub/x.xml",
		filepath.Join(wd, "cfg", "application.yml"): "application.yml",
		"other/application.yml":                     "application.yml",
		"cfg/../cfg2/a.yml":                         "a.yml",
	} {
		if got := rel(in); got != want {
			t.Errorf("workspace.RelativeTo(cfg)(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNoServerPathsOverWebSocket is issue 13's first item of 9: hover and
// completion said "Defined in /etc/...". A web client sees configuration
// positions relative to the configuration root, in every message.
func TestNoServerPathsOverWebSocket(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(exampleRoot)
	if err != nil {
		t.Fatal(err)
	}
	_, hs := newTestServer(t, config.Sources{ConfigRoot: root}, nil)
	ctx := testCtx(t)
	c, err := dialLSP(t, ctx, wsURL(hs), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	const doc = "file:///designer/scriptService/script.js"
	if err := c.open(ctx, doc, `api.rest.v1.get("crm", {}, {}); api.rest.v1.get("`); err != nil {
		t.Fatal(err)
	}
	var hover struct {
		Contents struct{ Value string }
	}
	if err := callDecode(ctx, c, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": doc},
		"position": map[string]any{"line": 0, "character": 18}}, &hover); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(hover.Contents.Value, "Defined in `application.yml:9`") {
		t.Errorf("hover on crm:\n%s", hover.Contents.Value)
	}
	var list struct {
		Items []struct {
			Label         string
			Documentation json.RawMessage
		}
	}
	if err := callDecode(ctx, c, "textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": doc},
		"position": map[string]any{"line": 0, "character": 49}}, &list); err != nil {
		t.Fatal(err)
	}
	docs := 0
	for _, it := range list.Items {
		if strings.Contains(string(it.Documentation), "Defined in `") {
			docs++
		}
		if strings.Contains(string(it.Documentation), root) {
			t.Errorf("completion %s names the server's path: %s", it.Label, it.Documentation)
		}
	}
	if docs == 0 {
		t.Errorf("no completion item says where it is defined: %+v", list.Items)
	}
	if _, err := c.waitNote(ctx, func(n note) bool { return n.method == lsp.MethodStatus }); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.notes {
		if strings.Contains(string(n.params), root) {
			t.Errorf("%s names the server's path: %s", n.method, n.params)
		}
	}
}

// TestNoServerPathsInStatus: /v1/status, with a configuration that fails,
// names the files relative to the root.
func TestNoServerPathsInStatus(t *testing.T) {
	t.Parallel()
	root := brokenRoot(t)
	_, hs := newTestServer(t, config.Sources{ConfigRoot: root}, nil)
	_, body := get(t, hs.URL+"/v1/status", nil)
	if strings.Contains(body, root) || !strings.Contains(body, `"file":"application.yml"`) {
		t.Errorf("/v1/status:\n%s", body)
	}
	// Nor in the session's status, or on the configuration files' URIs.
	ctx := testCtx(t)
	c, err := dialLSP(t, ctx, wsURL(hs), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if err := c.open(ctx, "file:///designer/scriptService/script.js", `api.rest.v1.get("x", {}, {});`); err != nil {
		t.Fatal(err)
	}
	if _, err := c.waitNote(ctx, func(n note) bool { return n.method == lsp.MethodStatus }); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.notes {
		if strings.Contains(string(n.params), root) {
			t.Errorf("%s names the server's path: %s", n.method, n.params)
		}
	}
}

// callDecode calls method and decodes the answer into result.
func callDecode(ctx context.Context, c *lspClient, method string, params, result any) error {
	var raw json.RawMessage
	if err := c.call(ctx, method, params, &raw); err != nil {
		return err
	}
	return json.Unmarshal(raw, result)
}
