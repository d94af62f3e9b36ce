//go:build unix

// Unix only: FIFOs, /dev/zero, /proc and symbolic links. Issue 23's
// findings about reading files (7, 8, 9, 14 and --record's directory),
// through the real binary.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/internal/goldentest"
	"github.com/restls/restls/lsp"
)

// gitRepo makes base/repo with a .git directory and base/outside, and
// returns both (links resolved: the messages name resolved paths).
func gitRepo(t *testing.T) (repo, outside string) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo, outside = filepath.Join(base, "repo"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, "tests"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return repo, outside
}

// TestTestScriptOutsideRepository is issue 23's finding 7: a test file
// with script: ../../../../proc/self/environ made restls test print the
// whole environment (CI tokens included) as the SyntaxError's source
// line, in text, --json and --junit; ../../etc/passwd printed that. Now
// both are refused, naming the file and the repository root, and a
// script inside the repository that is not text is refused unshown.
func TestTestScriptOutsideRepository(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc/self/environ")
	}
	repo, _ := gitRepo(t)
	up := strings.Repeat("../", strings.Count(repo, "/")+2)
	const canary = "RESTLS_CANARY_TOKEN=ci-secret-7f3a"
	writeFile(t, filepath.Join(repo, "tests"), "environ.test.yaml", "script: "+up+"proc/self/environ\nresult: 1\n")
	writeFile(t, filepath.Join(repo, "tests"), "passwd.test.yaml", "script: "+up+"etc/passwd\nresult: 1\n")
	writeFile(t, filepath.Join(repo, "tests"), "binary.test.yaml", "script: binary.js\nresult: 1\n")
	writeFile(t, filepath.Join(repo, "tests"), "binary.js", "return 1;\x00"+canary+"\n")
	if err := os.Symlink("/proc/self/environ", filepath.Join(repo, "tests", "link.js")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, "tests"), "link.test.yaml", "script: link.js\nresult: 1\n")
	config, _ := filepath.Abs("../../testdata/config")
	junit := filepath.Join(t.TempDir(), "junit.xml")
	for _, format := range [][]string{nil, {"--json"}, {"--junit", junit}} {
		args := append(append([]string{"test", "--config-root", config}, format...), filepath.Join(repo, "tests"))
		stdout, stderr, rc := runBounded(t, "", []string{canary}, 30*time.Second, args...)
		out := stdout + stderr
		if format != nil && format[0] == "--junit" {
			b, err := os.ReadFile(junit)
			if err != nil {
				t.Fatal(err)
			}
			out += string(b)
		}
		if rc != 1 {
			t.Errorf("%v: exit %d, want 1 (failing tests)", format, rc)
		}
		if strings.Contains(out, "ci-secret-7f3a") || strings.Contains(out, "root:x:0:0") || strings.Contains(out, "PATH=") {
			t.Errorf("%v: the output holds the environment or /etc/passwd:\n%s", format, out)
		}
		for _, want := range []string{"outside the repository root " + repo, "/proc/self/environ", "/etc/passwd", "not text"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: no %q in:\n%s", format, want, out)
			}
		}
		if format == nil {
			text := regexp.MustCompile(`/proc/[0-9]+/`).ReplaceAllString(strings.ReplaceAll(stdout, repo, "$REPO"), "/proc/PID/")
			goldentest.Check(t, filepath.Join("testdata", "golden", "input", "test-outside.txt"), text)
		}
	}
}

// TestTestUpdateLinkOut is issue 23's finding 14: restls test --update
// with a test file that is a symbolic link to
// ../../outside/victim.test.yaml rewrote the outside file with content
// the repository chose. Now it is refused and the file stays.
func TestTestUpdateLinkOut(t *testing.T) {
	t.Parallel()
	repo, outside := gitRepo(t)
	victim := writeFile(t, outside, "victim.test.yaml", "script: s.js\nresult: 2\n")
	writeFile(t, filepath.Join(repo, "tests"), "s.js", "return 1;\n")
	if err := os.Symlink("../../outside/victim.test.yaml", filepath.Join(repo, "tests", "victim.test.yaml")); err != nil {
		t.Fatal(err)
	}
	config, _ := filepath.Abs("../../testdata/config")
	stdout, stderr, rc := runBounded(t, "", nil, 30*time.Second, "test", "--update", "--config-root", config, filepath.Join(repo, "tests"))
	if b, _ := os.ReadFile(victim); string(b) != "script: s.js\nresult: 2\n" {
		t.Errorf("the file outside the repository was rewritten:\n%s", b)
	}
	if rc != 1 || !strings.Contains(stdout+stderr, "outside the repository root "+repo) {
		t.Errorf("exit %d, want 1 and the refusal named:\n%s%s", rc, stdout, stderr)
	}
}

// TestTestUpdateWriteFails is issue 33's point 5: restls test --update
// truncated the test file and then wrote it, so a write that failed half
// way (a full disk, a quota, here the file size limit RLIMIT_FSIZE of 2
// KiB, set by sh's ulimit on the binary) lost every case after the point
// of failure. Now the new text goes to a file beside it that replaces it
// only once whole: the test file stays as it was, no temporary file is
// left, and the message says so.
func TestTestUpdateWriteFails(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	repo, _ := gitRepo(t)
	writeFile(t, filepath.Join(repo, "tests"), "s.js", "return \"x\".repeat(200);\n")
	var b strings.Builder
	b.WriteString("script: s.js\ncases:\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "  - name: case %d\n    result: 0\n", i)
	}
	original := b.String()
	file := writeFile(t, filepath.Join(repo, "tests"), "big.test.yaml", original)
	config, _ := filepath.Abs("../../testdata/config")
	cmd := restlsCommand(t, "test", "--update", "--config-root", config, file)
	// ulimit -f counts 512-byte blocks in sh: 2 KiB, above the file's
	// 1.1 KiB and below the 9 KiB it becomes.
	cmd.Args = append([]string{"sh", "-c", `ulimit -f 4 && exec "$0" "$@"`, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = sh
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	runWithin(t, cmd, 30*time.Second, func() string { return out.String() + "\n" + errb.String() })
	if got, _ := os.ReadFile(file); string(got) != original {
		t.Errorf("the test file changed (%d bytes, was %d):\n%s", len(got), len(original), got)
	}
	text := out.String() + errb.String()
	if rc := cmd.ProcessState.ExitCode(); rc != 1 || !strings.Contains(text, "write "+file+": file too large; the file is left as it was") {
		t.Errorf("exit %d, want 1 and the failed write named:\n%s", rc, text)
	}
	entries, err := os.ReadDir(filepath.Join(repo, "tests"))
	if err != nil || len(entries) != 2 {
		t.Errorf("the tests directory holds %v (%v), want s.js and big.test.yaml only", entries, err)
	}
}

// TestRunRecordMissingDirectory is issue 23's minor finding: --record to
// a path in a missing directory failed only after the live calls were
// made. Now restls run refuses before any call.
func TestRunRecordMissingDirectory(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, `{"ok":true}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	if err := os.Mkdir(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, cfg, "application.yml", "scriptservice:\n  api:\n    - serviceId: s\n      url: "+srv.URL+"\n")
	script := writeFile(t, dir, "a.js", `var r = api.rest.v1.get("s", {}, {}); return r.body;`)
	missing := filepath.Join(dir, "missing")
	_, stderr, rc := runBounded(t, "", nil, 30*time.Second, "run", "--config-root", cfg, "--record", filepath.Join(missing, "a.mock.yaml"), script)
	if rc != 2 || hits.Load() != 0 {
		t.Errorf("exit %d after %d live calls, want 2 before any:\n%s", rc, hits.Load(), stderr)
	}
	if !strings.Contains(stderr, missing+" does not exist") {
		t.Errorf("the missing directory is not named:\n%s", stderr)
	}
}

// TestCheckIgnoreNotRegular is issue 23's finding 9: restls check never
// ended on a .gitignore that is a FIFO, took 1.5 GiB on one that is a
// link to /dev/zero, exited 2 without checking anything on one that is
// a directory, and read a sparse 3 GB big.js whole. Now each is a
// finding naming the file, and the other scripts are checked.
func TestCheckIgnoreNotRegular(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, c := range []struct {
		name, what string
		make       func(path string) error
	}{
		{"fifo", "a FIFO (named pipe)", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"devzero", "a character device", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"dir", "a directory", func(p string) error { return os.Mkdir(p, 0o755) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			repo, _ := gitRepo(t)
			if err := c.make(filepath.Join(repo, ".gitignore")); err != nil {
				t.Skip(err)
			}
			writeFile(t, repo, "ok.js", `api.rest.v1.get("no-such-service", {}, {});`+"\n")
			stdout, stderr, rc := runBounded(t, repo, nil, 20*time.Second, "check", "--config-root", mustAbs(t, "../../testdata/config"), "--format", "json")
			rep := checkJSON(t, stdout, stderr)
			if rc != 1 || rep.Scripts != 1 {
				t.Errorf("exit %d, %d scripts; want 1 (ok.js's error) and 1:\n%s%s", rc, rep.Scripts, stdout, stderr)
			}
			if f := rep.find("check-ignore-unreadable"); f == nil || f.File != ".gitignore" || f.Severity != "warning" || !strings.Contains(f.Message, c.what) {
				t.Errorf("no warning naming .gitignore and %s:\n%s", c.what, stdout)
			}
		})
	}
	t.Run("text", func(t *testing.T) {
		repo, _ := gitRepo(t)
		if err := os.Mkdir(filepath.Join(repo, ".gitignore"), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(repo, "big.js"))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(3 << 30); err != nil {
			t.Skip("no sparse files here:", err)
		}
		f.Close()
		writeFile(t, repo, "bin.js", "return 1;\x00SECRET\n")
		writeFile(t, repo, "ok.js", "return 1;\n")
		stdout, _, rc := runBounded(t, repo, nil, 20*time.Second, "check", "--config-root", mustAbs(t, "../../testdata/config"))
		if rc != 2 {
			t.Errorf("exit %d, want 2", rc)
		}
		// The example configuration's informations name it by its path.
		stdout = strings.ReplaceAll(stdout, mustAbs(t, "../.."), "$REPO")
		goldentest.Check(t, filepath.Join("testdata", "golden", "input", "check-unreadable.txt"), stdout)
	})
	t.Run("sparse", func(t *testing.T) {
		repo, _ := gitRepo(t)
		f, err := os.Create(filepath.Join(repo, "big.js"))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(3 << 30); err != nil {
			t.Skip("no sparse files here:", err)
		}
		f.Close()
		writeFile(t, repo, "ok.js", "return 1;\n")
		stdout, stderr, rc := runBounded(t, repo, nil, 20*time.Second, "check", "--config-root", mustAbs(t, "../../testdata/config"), "--format", "json")
		rep := checkJSON(t, stdout, stderr)
		if rc != 2 || rep.Scripts != 2 {
			t.Errorf("exit %d, %d scripts; want 2 (big.js unreadable) and 2:\n%s%s", rc, rep.Scripts, stdout, stderr)
		}
		if f := rep.find("check-unreadable"); f == nil || f.File != "big.js" || !strings.Contains(f.Message, "above the 16 MiB limit for scripts") {
			t.Errorf("no finding naming big.js and its size:\n%s", stdout)
		}
	})
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

type checkReport struct {
	Scripts  int
	Findings []struct{ File, Severity, Code, Message string } `json:"diagnostics"`
}

func (r *checkReport) find(code string) *struct{ File, Severity, Code, Message string } {
	for i := range r.Findings {
		if r.Findings[i].Code == code {
			return &r.Findings[i]
		}
	}
	return nil
}

func checkJSON(t *testing.T, stdout, stderr string) *checkReport {
	t.Helper()
	var rep checkReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("--json: %v\n%s\n%s", err, stdout, stderr)
	}
	return &rep
}

// TestServeDescriptionsNotRegular is issue 23's finding 8: --openapi
// id=/dev/zero took the language server to 1.2 GiB, a FIFO stayed
// "loading" forever, and a fixture file beside a script that is a link
// to /dev/zero took it to 1.27 GiB once the script was opened, in a
// freshly cloned repository. Now each fails at once, naming what the
// path is; a fixture file that links out of the repository is refused.
func TestServeDescriptionsNotRegular(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	repo, outside := gitRepo(t)
	fifo := filepath.Join(outside, "api.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	writeFile(t, outside, "secret.mock.yaml", "- serviceId: s\n  method: GET\n  path: leaked\n  status: 200\n")
	if err := os.Symlink("/dev/zero", filepath.Join(repo, "a.mock.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../outside/secret.mock.yaml", filepath.Join(repo, "b.mock.yaml")); err != nil {
		t.Fatal(err)
	}
	script := writeFile(t, repo, "a.js", "return 1;\n")
	settled := make(chan []lsp.APIStatus, 1)
	var once sync.Once
	handler := func(_ context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() != lsp.MethodStatus {
			return nil, nil
		}
		var st lsp.Status
		if json.Unmarshal(req.Params(), &st) != nil || len(st.OpenAPI) != 4 {
			return nil, nil
		}
		for _, a := range st.OpenAPI {
			if a.State == "loading" {
				return nil, nil
			}
		}
		once.Do(func() { settled <- st.OpenAPI })
		return nil, nil
	}
	cmd := restlsCommand(t, "serve", "--stdio", "--config-root", mustAbs(t, "../../testdata/config"), "--log-level", "warn",
		"--openapi", "crm-orders=/dev/zero", "--openapi", "crm-customers="+fifo)
	p := startServeCommand(t, cmd, handler)
	if err := p.call(t, protocol.MethodInitialize, &protocol.InitializeParams{}, &protocol.InitializeResult{}); err != nil {
		t.Fatal(err)
	}
	_ = p.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{})
	_ = p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: uri.File(script), LanguageID: "javascript", Version: 1, Text: "return 1;\n"}})
	var got []lsp.APIStatus
	select {
	case got = <-settled:
	case <-time.After(20 * time.Second):
		t.Fatalf("the descriptions did not all fail within 20 s; stderr:\n%s", p.stderr.String())
	}
	want := map[string]string{"/dev/zero": "a character device", fifo: "a FIFO (named pipe)", "a.mock.yaml": "leads to /dev/zero", "b.mock.yaml": "outside the repository root"}
	for _, a := range got {
		w := ""
		for src, what := range want {
			if strings.HasSuffix(a.Source, src) {
				w = what
			}
		}
		if a.State != "failed" || w == "" || !strings.Contains(a.Error, w) {
			t.Errorf("%s: %s %q, want failed with %q", a.Source, a.State, a.Error, w)
		}
	}
	if err := p.call(t, protocol.MethodShutdown, nil, nil); err != nil {
		t.Fatal(err)
	}
	_ = p.conn.Notify(context.Background(), protocol.MethodExit, nil)
	if code := p.wait(t); code != 0 {
		t.Errorf("exit %d; stderr:\n%s", code, p.stderr.String())
	}
	if rss, ok := peakRSS(p.cmd.ProcessState); ok {
		t.Logf("restls serve: peak RSS %.1f MiB", float64(rss)/(1<<20))
		if rss > maxReadRSS {
			t.Errorf("peak RSS %d MiB, want at most %d", rss>>20, maxReadRSS>>20)
		}
	}
}

// TestFixturesGenerateDanglingLink (issue 33, point 9): restls fixtures
// generate beside a fixture file that is a link to nothing outside the
// repository refuses it, naming the link and its target, as record
// "auto" and "Add a fixture for this call" do; nothing is created.
func TestFixturesGenerateDanglingLink(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "repo")
	for _, d := range []string{".git", "config", "apis"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, dir, "config/application.yml", "scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.com/api\n")
	writeFile(t, dir, "restls.yaml", "configRoot: config\nopenapi:\n  shop: apis/shop.json\n")
	writeFile(t, dir, "apis/shop.json", shopDescription)
	writeFile(t, dir, "orders.js", "return api.rest.v1.get(\"shop\", {pathParams: [\"orders\", \"1\"]}, {}).body.id;\n")
	if err := os.Symlink("../planted.yaml", filepath.Join(dir, "orders.mock.yaml")); err != nil {
		t.Fatal(err)
	}
	out, errs, rc := runInDir(t, dir, "fixtures", "generate", "orders.js")
	if want := "restls fixtures: cannot write orders.mock.yaml: the path is a symbolic link to " + filepath.Join(base, "planted.yaml") + ", which does not exist; remove the link, or create the file it names\n"; rc != 2 || errs != want {
		t.Errorf("exit %d, stderr %q, stdout %q; want 2 and\n%s", rc, errs, out, want)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "orders.mock.yaml")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if _, err := os.Stat(filepath.Join(base, "planted.yaml")); err == nil {
		t.Error("the link's target was created")
	}
}

// TestReportFilesReplaceLinks: the report files restls test writes
// (--junit, the coverage directory's) replace a symbolic link at their
// name rather than write through it: the file the link named, outside
// the project, is left as it was.
func TestReportFilesReplaceLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "keep.txt")
	if err := os.WriteFile(outside, []byte("not a report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	junit := filepath.Join(dir, "junit.xml")
	cov := filepath.Join(dir, "coverage")
	if err := os.MkdirAll(cov, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{junit, filepath.Join(cov, "lcov.info")} {
		if err := os.Symlink(outside, link); err != nil {
			t.Fatal(err)
		}
	}
	_, stderr, rc := runBinary(t, testArgs("--junit", junit, "--coverage", "--coverage-dir", cov, "testdata/scripttest/passing.test.yaml")...)
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr)
	}
	if got, _ := os.ReadFile(outside); string(got) != "not a report\n" {
		t.Errorf("a report was written through a link into %s: %q", outside, got)
	}
	for _, name := range []string{junit, filepath.Join(cov, "lcov.info")} {
		fi, err := os.Lstat(name)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
			t.Errorf("%s: %v, %v; want the report as a regular file", name, fi, err)
		}
	}
}
