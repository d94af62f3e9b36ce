package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/lsp"
)

// testProject writes a project with scripts/orders.js and its test file
// (cmd/restls's coverage example: three cases, one call site with three
// outcomes, a branch never taken) and returns its root.
func testProject(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"orders.js", "orders.test.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "cmd", "restls", "testdata", "coverage", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "scripts", name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// writeProjectFile writes a file of the project and tells the session, as
// an editor watching the files does: POST /v1/test finds the test files
// in the session's project index, which no request walks again.
func writeProjectFile(t *testing.T, s *Server, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s.opts.Session.FilesChanged([]string{path})
}

// ordersScript is the project's script as the editor holds it.
func ordersScript(t *testing.T, root string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "scripts", "orders.js"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func testBodyOf(t *testing.T, script, text string) string {
	t.Helper()
	b, err := json.Marshal(testBody{Script: script, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDesignerTestRun (issue 35): POST /v1/test runs the project's test
// cases of the script named by its path, with the editor's text (unsaved:
// here one that fails a case), and answers each case's outcome with its
// failure and the script's covered lines.
func TestDesignerTestRun(t *testing.T) {
	t.Parallel()
	root := testProject(t)
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) { o.Runner, o.TestRoot, o.Admit = eng.Run, root, eng.Admit })
	auth := map[string]string{"Authorization": "Bearer " + s.key}
	// The editor's text differs from the file: the case "found" fails
	// with it, which it would not with the file.
	text := strings.Replace(ordersScript(t, root), "return { name: name };", "return { name: name + \"!\" };", 1)
	res, body := post(t, hs.URL+"/v1/test", testBodyOf(t, "scripts/orders.js", text), auth)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/test = %d %s", res.StatusCode, body)
	}
	var got testAnswer
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if got.Script != "scripts/orders.js" || !slices.Equal(got.Files, []string{"scripts/orders.test.yaml"}) || got.Passed != 2 || got.Failed != 1 || len(got.Tests) != 3 {
		t.Fatalf("answer %s", body)
	}
	var outcomes []string
	for _, c := range got.Tests {
		outcomes = append(outcomes, fmt.Sprintf("%s:%d %s %v", c.File, c.Line, c.Name, c.Passed))
	}
	if want := []string{"scripts/orders.test.yaml:14 found false", "scripts/orders.test.yaml:17 missing true", "scripts/orders.test.yaml:20 slow true"}; !slices.Equal(outcomes, want) {
		t.Errorf("cases %q, want %q", outcomes, want)
	}
	if f := got.Tests[0].Failures; len(f) == 0 || !strings.Contains(f[0], `$.name: expected "Ann", got "Ann!"`) {
		t.Errorf("the failing case's failures %q do not say what differs", f)
	}
	if strings.Contains(body, root) {
		t.Errorf("the answer names the server's directory %s:\n%s", root, body)
	}
	cov := got.Coverage
	if cov == nil || cov.Name != "scripts/orders.js" {
		t.Fatalf("no coverage of scripts/orders.js: %s", body)
	}
	var lines []string
	for _, l := range cov.Lines {
		lines = append(lines, fmt.Sprintf("%d:%d", l.Line, l.Hits))
	}
	// restls test --coverage's LCOV of the same cases
	// (cmd/restls/testdata/golden/test/coverage.lcov); the differential
	// test through the binary is cmd/restls's TestDesignerCoverageIsRestlsTests.
	if want := []string{"1:3", "2:3", "3:3", "4:3", "6:2", "7:1", "9:1", "11:1", "12:1", "13:0", "14:0", "16:1"}; !slices.Equal(lines, want) {
		t.Errorf("covered lines %q, want %q", lines, want)
	}
	if len(cov.Calls) != 2 || len(cov.Calls[0].Outcomes) != 3 || cov.Calls[0].Line != 4 {
		t.Errorf("call sites %+v", cov.Calls)
	}

	// The scripts the test files name, for the page's script field: one
	// outside the project (../) is left out.
	writeProjectFile(t, s, filepath.Join(root, "scripts", "outside.test.yaml"), []byte("script: ../../x.js\nresult: 1\n"))
	res, body = get(t, hs.URL+"/v1/test/scripts", auth)
	if res.StatusCode != http.StatusOK || strings.TrimSpace(body) != `{"scripts":[{"script":"scripts/orders.js","files":["scripts/orders.test.yaml"]}]}` {
		t.Errorf("GET /v1/test/scripts = %d %s", res.StatusCode, body)
	}
	if res, body := get(t, hs.URL+"/v1/test/scripts", nil); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /v1/test/scripts without the key = %d %s; want 401", res.StatusCode, body)
	}

	t.Run("no test file", func(t *testing.T) {
		t.Parallel()
		res, body := post(t, hs.URL+"/v1/test", testBodyOf(t, "scripts/invoices.js", "return 1;"), auth)
		if res.StatusCode != http.StatusNotFound || !strings.Contains(body, "create scripts/invoices.test.yaml") || !strings.Contains(body, `script: invoices.js`) {
			t.Errorf("POST /v1/test of a script without tests = %d %s; want 404 naming the file to create", res.StatusCode, body)
		}
	})
	t.Run("a malformed test file", func(t *testing.T) {
		t.Parallel()
		// Not YAML, but it names the script: it is a failing entry with
		// the message restls test prints for this file ("FAIL
		// scripts/broken.test.yaml:4: (test file)" and this line), not
		// "no test file".
		writeProjectFile(t, s, filepath.Join(root, "scripts", "broken.test.yaml"), []byte("script: broken.js\ncases:\n  - name: a\n   result: [1\n"))
		res, body := post(t, hs.URL+"/v1/test", testBodyOf(t, "scripts/broken.js", "return 1;"), auth)
		var got testAnswer
		if err := json.Unmarshal([]byte(body), &got); err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("POST /v1/test of a script whose test file is not YAML = %d %s; want 200 with the file failing", res.StatusCode, body)
		}
		want := testCaseJSON{File: "scripts/broken.test.yaml", Name: "(test file)", Line: 4, Failures: []string{"scripts/broken.test.yaml:4:4: did not find expected '-' indicator"}}
		if got.Failed != 1 || len(got.Tests) != 1 || got.Tests[0].File != want.File || got.Tests[0].Name != want.Name || got.Tests[0].Line != want.Line || got.Tests[0].Passed || !slices.Equal(got.Tests[0].Failures, want.Failures) {
			t.Errorf("answer %s; want the one entry %+v", body, want)
		}
	})
	t.Run("paths outside the project", func(t *testing.T) {
		t.Parallel()
		for _, p := range []string{"../orders.js", "/etc/passwd", "", ".", "scripts/..", strings.Repeat("a/", 600) + "x.js"} {
			res, body := post(t, hs.URL+"/v1/test", testBodyOf(t, p, "return 1;"), auth)
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, `\"script\"`) {
				t.Errorf("script %.40q: %d %s; want 400", p, res.StatusCode, body)
			}
		}
	})
	t.Run("too many cases", func(t *testing.T) {
		t.Parallel()
		var b strings.Builder
		b.WriteString("script: big.js\ncases:\n")
		for i := range maxTestCases + 1 {
			fmt.Fprintf(&b, "  - name: c%d\n", i)
		}
		writeProjectFile(t, s, filepath.Join(root, "scripts", "big.test.yaml"), []byte(b.String()))
		res, body := post(t, hs.URL+"/v1/test", testBodyOf(t, "scripts/big.js", "return 1;"), auth)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "run them with restls test scripts/big.js") {
			t.Errorf("101 cases: %d %s; want 422 naming restls test", res.StatusCode, body)
		}
	})
	t.Run("the key", func(t *testing.T) {
		t.Parallel()
		res, body := post(t, hs.URL+"/v1/test", testBodyOf(t, "scripts/orders.js", text), nil)
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("without the key: %d %s; want 401", res.StatusCode, body)
		}
	})
}

// TestDesignerTestRunBounds: a test run takes one of the engine's
// --max-runs slots before it reads its body (429 when none is free), and
// a server without --allow-run refuses it.
func TestDesignerTestRunBounds(t *testing.T) {
	t.Parallel()
	root := testProject(t)
	eng := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: 1})
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) { o.Runner, o.TestRoot, o.Admit = eng.Run, root, eng.Admit })
	auth := map[string]string{"Authorization": "Bearer " + s.key}
	slot, ok := eng.Admit()
	if !ok {
		t.Fatal("no slot")
	}
	res, body := post(t, hs.URL+"/v1/test", testBodyOf(t, "scripts/orders.js", ordersScript(t, root)), auth)
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Errorf("every slot taken: %d %s; want 429", res.StatusCode, body)
	}
	slot.Release()
	if res, body := post(t, hs.URL+"/v1/test", testBodyOf(t, "scripts/orders.js", ordersScript(t, root)), auth); res.StatusCode != http.StatusOK {
		t.Errorf("the slot released: %d %s", res.StatusCode, body)
	}

	_, off := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.Runner, o.TestRoot, o.Gate = eng.Run, root, NewGate(GateOptions{AllowRun: false})
	})
	res, body = post(t, off.URL+"/v1/test", testBodyOf(t, "scripts/orders.js", "return 1;"), auth)
	if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "--allow-run") {
		t.Errorf("without --allow-run: %d %s; want 403", res.StatusCode, body)
	}
}

// TestDesignerTestRoles: a test run answers every call from fixtures, so
// it needs the role mocker, checked before the project is read (a viewer
// learns nothing of its test files); each case is audited as the test
// run's ("via": "test").
func TestDesignerTestRoles(t *testing.T) {
	t.Parallel()
	root := testProject(t)
	rs := newRoleServer(t, "test")
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	gate := rs.s.gate
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.LSP = lsp.NewServer(lsp.Options{Sources: config.Sources{ConfigRoot: exampleRoot}, PollInterval: -1})
		o.Runner, o.Gate, o.TestRoot = eng.Run, gate, root
		o.Auth = rs.s.opts.Auth
	})
	for _, tc := range []struct {
		user, groups, script string
		code                 int
		says                 string
	}{
		{"vera", "", "scripts/orders.js", http.StatusForbidden, "need the role mocker"},
		{"vera", "", "scripts/none.js", http.StatusForbidden, "role mocker"},
		{"bob", "banned", "scripts/orders.js", http.StatusForbidden, "no role on this server"},
		{"ann", "authors", "scripts/orders.js", http.StatusOK, `"passed":3`},
		{"ops", "ops-test", "scripts/orders.js", http.StatusOK, `"passed":3`},
	} {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/v1/test", strings.NewReader(testBodyOf(t, tc.script, ordersScript(t, root))))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(DefaultUserHeader, tc.user)
		if tc.groups != "" {
			req.Header.Set(DefaultGroupsHeader, tc.groups)
		}
		res, body := do(t, req)
		if res.StatusCode != tc.code || !strings.Contains(body, tc.says) {
			t.Errorf("%s (%s) %s: %d %s; want %d saying %q", tc.user, tc.groups, tc.script, res.StatusCode, body, tc.code, tc.says)
		}
	}
	for _, tc := range []struct {
		user, groups string
		code         int
	}{{"vera", "", http.StatusForbidden}, {"ann", "authors", http.StatusOK}} {
		res, body := get(t, hs.URL+"/v1/test/scripts", map[string]string{DefaultUserHeader: tc.user, DefaultGroupsHeader: tc.groups})
		if res.StatusCode != tc.code || tc.code == http.StatusOK && !strings.Contains(body, `"scripts/orders.js"`) || tc.code != http.StatusOK && !strings.Contains(body, "role mocker") {
			t.Errorf("GET /v1/test/scripts as %s: %d %s; want %d", tc.user, res.StatusCode, body, tc.code)
		}
	}
	var summary []string
	for _, r := range rs.records(t) {
		summary = append(summary, r.User+"/"+r.Script+"/"+r.Mode+"/"+r.Via+"/"+r.Outcome)
	}
	want := []string{"vera/orders.js/mock/test/refused", "vera/none.js/mock/test/refused",
		"ann/orders.js/mock/test/returned", "ann/orders.js/mock/test/returned", "ann/orders.js/mock/test/threw",
		"ops/orders.js/mock/test/returned", "ops/orders.js/mock/test/returned", "ops/orders.js/mock/test/threw"}
	if !slices.Equal(summary, want) {
		t.Errorf("audit %q, want %q", summary, want)
	}
}

// FuzzTestScript: whatever "script" POST /v1/test is sent, it is refused
// or it is a path inside the project root, named back relative with "/"
// (the only path the run reads test files by and overlays text at).
func FuzzTestScript(f *testing.F) {
	for _, seed := range []string{"scripts/orders.js", "./a.js", "../a.js", "a/../../b.js", "/etc/passwd", `C:\x.js`, `..\..\x.js`, "", " ", "a//b/./c.js",
		"scripts/\x00.js", strings.Repeat("a/", 511) + "x.js", strings.Repeat("../", 400), "é/ü.js", "a/b/..", "."} {
		f.Add(seed)
	}
	root := filepath.Join(os.TempDir(), "restls-fuzz-root")
	s := &Server{opts: Options{TestRoot: root}}
	f.Fuzz(func(t *testing.T, script string) {
		rel, abs, err := s.testScript(script)
		if err != nil {
			if rel != "" || abs != "" {
				t.Fatalf("refused %q yet answered %q, %q", script, rel, abs)
			}
			return
		}
		back, err := filepath.Rel(root, abs)
		if err != nil || !filepath.IsLocal(back) || back == "." || filepath.ToSlash(back) != rel || len(script) > maxScriptPath {
			t.Fatalf("script %q: %q, %q is not a path inside %s named back", script, rel, abs, root)
		}
	})
}

// TestDesignerTestsFromTheIndex: POST /v1/test and GET /v1/test/scripts
// find the test files in the session's project index, not by walking
// the project per request: a test file added on disk is not seen until
// the index is brought current (the session told of it, as an editor's
// file watcher tells it, or its poll at most once per IndexPoll), and
// then is.
func TestDesignerTestsFromTheIndex(t *testing.T) {
	t.Parallel()
	root := testProject(t)
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.Runner, o.TestRoot, o.Admit, o.IndexPoll = eng.Run, root, eng.Admit, time.Hour
	})
	auth := map[string]string{"Authorization": "Bearer " + s.key}
	scripts := func() string {
		t.Helper()
		res, body := get(t, hs.URL+"/v1/test/scripts", auth)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET /v1/test/scripts = %d %s", res.StatusCode, body)
		}
		return strings.TrimSpace(body)
	}
	const before = `{"scripts":[{"script":"scripts/orders.js","files":["scripts/orders.test.yaml"]}]}`
	if got := scripts(); got != before {
		t.Fatalf("GET /v1/test/scripts = %s, want %s", got, before)
	}
	added := filepath.Join(root, "scripts", "invoices.test.yaml")
	if err := os.WriteFile(added, []byte("script: invoices.js\nresult: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if got := scripts(); got != before {
			t.Fatalf("a test file nobody told the index of is listed: a request walked the project: %s", got)
		}
	}
	if res, body := post(t, hs.URL+"/v1/test", testBodyOf(t, "scripts/invoices.js", "return 1;"), auth); res.StatusCode != http.StatusNotFound {
		t.Fatalf("POST /v1/test of the new file's script before the index knows it = %d %s; want 404", res.StatusCode, body)
	}
	s.opts.Session.FilesChanged([]string{added})
	if got, want := scripts(), `{"scripts":[{"script":"scripts/invoices.js","files":["scripts/invoices.test.yaml"]},{"script":"scripts/orders.js","files":["scripts/orders.test.yaml"]}]}`; got != want {
		t.Errorf("the session told: GET /v1/test/scripts = %s, want %s", got, want)
	}
	res, body := post(t, hs.URL+"/v1/test", testBodyOf(t, "scripts/invoices.js", "return 1;"), auth)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `"passed":1`) {
		t.Errorf("POST /v1/test of the new file's script = %d %s; want its case passing", res.StatusCode, body)
	}
}
