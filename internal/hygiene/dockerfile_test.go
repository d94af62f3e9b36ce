package hygiene_test

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"

	"github.com/restls/restls/internal/restlstest"
)

// TestDockerfileBuildsStatic runs the Dockerfile's go build line as
// written (no container runtime here) and checks the binary is static: no
// program interpreter, no shared library. It also checks the final stage
// runs that binary as a non-root user on an empty base.
func TestDockerfileBuildsStatic(t *testing.T) {
	// Independent of every other test (its own files and processes):
	// it runs beside the other slow ones (make test's time, issue 33).
	t.Parallel()
	if testing.Short() {
		t.Skip("builds restls from scratch (-trimpath, CGO_ENABLED=0)")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(repo, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var build, user, from string
	var stages int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "FROM "):
			stages++
			from = line
		case strings.HasPrefix(line, "RUN ") && strings.Contains(line, "go build"):
			build = strings.TrimPrefix(line, "RUN ")
		case strings.HasPrefix(line, "USER "):
			user = strings.TrimPrefix(line, "USER ")
		}
	}
	if stages < 2 || from != "FROM scratch" {
		t.Errorf("want a multi-stage build ending on scratch; last stage: %q", from)
	}
	if user == "" || strings.HasPrefix(user, "0") || strings.HasPrefix(user, "root") {
		t.Errorf("USER %q: the image must not run as root", user)
	}
	if build == "" {
		t.Fatal("no RUN ... go build line in the Dockerfile")
	}
	out := filepath.Join(repo, "bin", "restls-static")
	if !strings.Contains(build, "-o bin/restls-static") {
		t.Fatalf("the build line no longer writes bin/restls-static: %s", build)
	}
	t.Cleanup(func() { _ = os.Remove(out) })
	// The RUN line as the build stage runs it: sh -c in the source root,
	// with the ARG VERSION set.
	cmd := exec.Command("sh", "-c", build)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "VERSION=v0.0.0-dockerfile-test", "COMMIT=0123456789abcdef-dockerfile-test")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", build, err, b)
	}
	bin, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer bin.Close()
	for _, p := range bin.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has a program interpreter: it is dynamically linked", out)
		}
	}
	if libs, err := bin.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("%s needs shared libraries %v (%v)", out, libs, err)
	}
	v, err := exec.Command(out, "version").CombinedOutput()
	if err != nil || !strings.Contains(string(v), "restls v0.0.0-dockerfile-test (commit 0123456789abcdef-dockerfile-test,") {
		t.Errorf("%s version: %v %s (want the VERSION and COMMIT build arguments stamped)", out, err, v)
	}
}

// TestDockerignore checks, with Docker's own matcher, that the build
// context leaves out what the image does not need (dist/ alone is about
// 100 MB after make dist) and keeps what the build stage compiles.
func TestDockerignore(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join(restlstest.Root(t), ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	patterns, err := ignorefile.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatal(err)
	}
	for path, excluded := range map[string]bool{
		"dist/restls-v0.1.0-linux-x64.tar.gz":            true,
		"dist/SHA256SUMS":                                true,
		"bin/restls":                                     true,
		"out/e2e-web/20-embedded.png":                    true,
		".git/HEAD":                                      true,
		"vscode-extension/node_modules/esbuild/x.js":     true,
		"web/designer/node_modules/esbuild/x.js":         true,
		"vscode-extension/restls-0.1.0.vsix":             true,
		"go.mod":                                         false,
		"cmd/restls/main.go":                             false,
		"web/static/designer.js":                         false,
		"runtime/restclient/schema/mock.schema.json":     false,
		"vscode-extension/package.json":                  false,
		"cmd/restls/testdata/golden/version/text.golden": false,
	} {
		got, err := pm.MatchesOrParentMatches(path)
		if err != nil {
			t.Fatal(err)
		}
		if got != excluded {
			t.Errorf(".dockerignore: %s excluded = %v, want %v", path, got, excluded)
		}
	}
}

// TestServeHTTPWritesNoTempFiles: serve --http with dry runs allowed
// needs nothing writable. Its temporary and cache directories are paths
// no one can create (below a regular file), and a dry run with pasted
// fixtures still answers from them. So the image's read-only root needs
// no tmpfs, and the Dockerfile, docs/deploy.md and the Kubernetes
// manifests must not ask for one: the Dockerfile once said dry runs with
// inline mocks wrote their fixtures to /tmp, which docs/runtime.md says
// they never do.
func TestServeHTTPWritesNoTempFiles(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o444); err != nil {
		t.Fatal(err)
	}
	cmd := restlstest.Command(t, "serve", "--http", "127.0.0.1:0", "--allow-run", "--config-root", "testdata/config")
	cmd.Dir = restlstest.Root(t)
	cmd.Env = append(cmd.Env, "TMPDIR="+filepath.Join(file, "tmp"), "HOME="+filepath.Join(file, "home"), "XDG_CACHE_HOME="+filepath.Join(file, "cache"))
	p := restlstest.StartHTTP(t, cmd)
	req, _ := json.Marshal(map[string]any{
		"text": `return api.rest.v1.get("crm", {pathParams: ["x"]}, {}).body;`,
		"mock": "fixtures:\n  - serviceId: crm\n    path: x\n    body: {ok: true}\n",
	})
	res, err := http.Post(p.Base+"/v1/run?access_token="+p.Key, "application/json", bytes.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.Contains(string(body), `"result":{"ok":true}`) {
		t.Fatalf("a dry run with pasted mocks and no writable directory = %d %.500s\nstderr:\n%s", res.StatusCode, body, p.Stderr.String())
	}

	for _, f := range []string{"Dockerfile", "docs/deploy.md", "deploy/kubernetes/deployment.yaml"} {
		data, err := os.ReadFile(filepath.Join(restlstest.Root(t), f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "--tmpfs") || strings.Contains(line, "mount a tmpfs") ||
				strings.Contains(line, "mountPath: /tmp") || strings.Contains(line, "fixtures there") {
				t.Errorf("%s:%d asks for a writable /tmp, which restls does not need: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
