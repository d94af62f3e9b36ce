package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/internal/restlstest"
)

// docsBlock returns the first ```lang block of the docs/lsp.md section
// whose heading starts with heading.
func docsBlock(t *testing.T, heading, lang string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), "docs/lsp.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "\n"+heading)
	if !ok {
		t.Fatalf("docs/lsp.md has no %q section", heading)
	}
	sec, _, _ = strings.Cut(sec, "\n### ")
	_, code, ok := strings.Cut(sec, "\n```"+lang+"\n")
	if !ok {
		t.Fatalf("the %q section of docs/lsp.md has no ```%s block", heading, lang)
	}
	code, _, ok = strings.Cut(code, "\n```\n")
	if !ok {
		t.Fatalf("the ```%s block of docs/lsp.md's %q section does not end", lang, heading)
	}
	return code + "\n"
}

// TestEmacsEglotDocsSnippet loads docs/lsp.md's eglot setup as written in
// batch Emacs with restls on PATH: a script opens in js-mode, eglot starts
// restls for the project, and serviceIds complete through eglot.
func TestEmacsEglotDocsSnippet(t *testing.T) {
	t.Parallel()
	emacs, err := exec.LookPath("emacs")
	if err != nil {
		skipMissingTool(t, "emacs", "apt-get install emacs-nox elpa-eglot")
	}
	exe := restlstest.Binary(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	wrapper := "#!/bin/sh\nexec '" + exe + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "restls"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	snippet := filepath.Join(dir, "restls.el")
	el := docsBlock(t, "### Emacs", "elisp")
	// The page's configRoot is an example path; the test's configuration
	// is the workspace's, read from the project root.
	el = strings.Replace(el, `:initializationOptions
                                       (:configRoot "/etc/acme/webforms")`, `:initializationOptions
                                       (:configRoot "`+filepath.Join(dir, "ws")+`")`, 1)
	if !strings.Contains(el, filepath.Join(dir, "ws")) {
		t.Fatalf("the eglot block of docs/lsp.md no longer has the configRoot line this test replaces:\n%s", el)
	}
	if err := os.WriteFile(snippet, []byte(el), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	if err := os.CopyFS(ws, os.DirFS(filepath.Join(repoRoot(t), "testdata/config"))); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(ws, "scripts", "a.js")
	if err := os.MkdirAll(filepath.Dir(a), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(a, []byte("// a script\nvar r = api.rest.v1.get(\"crm\", {}, {});\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	driver, _ := filepath.Abs("testdata/emacs/driver.el")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// --batch without -Q: Debian's site-start activates elpa-eglot.
	cmd := exec.CommandContext(ctx, emacs, "--batch", "-l", snippet, "-l", driver)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+dir, "RESTLS_A="+a, "RESTLS_OUT="+out)
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("emacs: %v\n%s", err, output)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("emacs wrote no result: %v\n%s", err, output)
	}
	var res struct {
		Mode    string
		Server  bool
		Labels  []string
		Refs    []string
		Renamed string
		Config  string
		Error   string
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("bad result %s: %v", raw, err)
	}
	t.Logf("emacs saw: %s", raw)
	if res.Error != "" || res.Mode != "js-mode" || !res.Server {
		t.Fatalf("eglot did not start restls: %+v\n%s", res, output)
	}
	for _, want := range []string{"crm", "crm-orders"} {
		if !slices.Contains(res.Labels, want) {
			t.Errorf("serviceId completion through eglot lacks %q: %q", want, res.Labels)
		}
	}
	// References of "crm" (issue 26) through eglot's xref backend: the
	// call, its definition and the crm/orders url, as file:line.
	for _, want := range []string{"scripts/a.js:2", "application.yml:"} {
		if !slices.ContainsFunc(res.Refs, func(r string) bool { return strings.HasPrefix(r, want) }) {
			t.Errorf("references through eglot lack %q: %q", want, res.Refs)
		}
	}
	// eglot-rename applied the one edit to the script and the properties.
	if !strings.Contains(res.Renamed, `get("crm-v2"`) || !strings.Contains(res.Config, "serviceId: crm-v2") {
		t.Errorf("after eglot-rename: the call %q, application.yml:\n%s", res.Renamed, res.Config)
	}
}
