package web

import (
	"strings"
	"testing"

	"github.com/restls/restls/config"
)

// TestPage: the designer page and its bundle are embedded (a fresh go build
// serves them) and sent with a strict content security policy.
func TestPage(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	res, body := get(t, hs.URL+"/", nil)
	if res.StatusCode != 200 || !strings.Contains(body, `<script src="designer.js">`) || !strings.Contains(body, `id="tab-mocks"`) || !strings.Contains(body, `id="tab-problems"`) {
		t.Fatalf("GET / = %d %.300s", res.StatusCode, body)
	}
	body0 := body
	if rp := res.Header.Get("Referrer-Policy"); rp != "no-referrer" {
		t.Errorf("Referrer-Policy = %q: the page address may carry the key", rp)
	}
	csp := res.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'self'") || strings.Contains(csp, "script-src 'unsafe-inline'") {
		t.Errorf("Content-Security-Policy = %q", csp)
	}
	res, body = get(t, hs.URL+"/designer.js", nil)
	if res.StatusCode != 200 || len(body) < 100_000 || !strings.Contains(res.Header.Get("Content-Type"), "javascript") {
		t.Fatalf("GET /designer.js = %d, %d bytes, %s", res.StatusCode, len(body), res.Header.Get("Content-Type"))
	}
	// The bundle talks to lsp (relative to the page) and knows the status
	// notification, runs and quick fixes.
	for _, want := range []string{`"lsp"`, "restls/status", "v1/run", "v1/status", "textDocument/codeAction", "v1/run/plan", "v1/mock/check"} {
		if !strings.Contains(body, want) {
			t.Errorf("designer.js does not mention %q", want)
		}
	}
	res, _ = get(t, hs.URL+"/designer.css", nil)
	if res.StatusCode != 200 {
		t.Errorf("GET /designer.css = %d", res.StatusCode)
	}
	// The page names its icon, so browsers do not ask for /favicon.ico.
	if !strings.Contains(body0, `<link rel="icon" href="favicon.svg"`) {
		t.Errorf("the page names no icon")
	}
	res, svg := get(t, hs.URL+"/favicon.svg", nil)
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Type"), "image/svg+xml") || !strings.Contains(svg, "<svg") {
		t.Errorf("GET /favicon.svg = %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	res, _ = get(t, hs.URL+"/nothing-here", nil)
	if res.StatusCode != 404 {
		t.Errorf("GET /nothing-here = %d", res.StatusCode)
	}
}
