package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/input"
)

// runProject runs the restls binary (this test binary as restls) in dir with
// the extra environment, and returns stdout, stderr and the status.
func runProject(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := restlsCommand(t, args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second): // a generous deadline on a hang
		_ = cmd.Process.Kill()
		t.Fatalf("restls %s did not finish in 60s", strings.Join(args, " "))
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// TestProjectFile: restls.yaml through the binary. testdata/project's
// file names ../config, a kind map (jobs/ holds scriptTask scripts with
// no directive), check.exclude (skip/ holds a script with an unknown
// serviceId), and the environment broken (../config-broken, which has no
// archive-cases for scriptTask). Each command finds it from the script,
// the PATH or the working directory; --project names another, --env picks
// an environment, and flags and RESTLS_* override the file key by key.
func TestProjectFile(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	proj := filepath.Join(root, "testdata", "project")
	other := t.TempDir()
	brokenFile := filepath.Join(other, "restls.yaml")
	if err := os.WriteFile(brokenFile, []byte("configRoot: "+filepath.Join(root, "testdata", "config-broken")+"\nscriptKinds:\n  \"**/jobs/**\": scriptTask\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	typo := filepath.Join(other, "typo.yaml")
	if err := os.WriteFile(typo, []byte("configRoot: x\ncheck:\n  exlude: [a]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A test file that names no kind: the project's scriptKinds decide.
	kindlessDir := filepath.Join(other, "kindless")
	kindless := filepath.Join(kindlessDir, "restls.yaml")
	if err := os.MkdirAll(filepath.Join(kindlessDir, "jobs"), 0o755); err != nil {
		t.Fatal(err)
	}
	test, err := os.ReadFile(filepath.Join(proj, "tests", "archive-case.test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	test = []byte(strings.NewReplacer("../scripts/jobs/archive-case.js", "archive-case.js", "kind: scriptTask\n", "").Replace(string(test)))
	script, err := os.ReadFile(filepath.Join(proj, "scripts", "jobs", "archive-case.js"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		kindless: []byte("configRoot: " + filepath.Join(root, "testdata", "config") + "\nscriptKinds:\n  \"**/jobs/**\": scriptTask\n"),
		filepath.Join(kindlessDir, "jobs", "archive-case.js"):        script,
		filepath.Join(kindlessDir, "jobs", "archive-case.test.yaml"): test,
	} {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runJSON := []string{"run", "--json", "--kind", "scriptTask", "--mock", "fixtures/archive.yaml", "--input", "fixtures/input.json", "scripts/jobs/archive-case.js"}
	for _, tc := range []struct {
		name      string
		dir       string
		env       []string
		args      []string
		rc        int
		out, errs string // substrings
	}{
		// check: found from the PATH, from another working directory.
		{"check finds the file from its PATH", root, nil, []string{"check", "testdata/project/scripts"}, 0, "1 script checked: 0 errors, 0 warnings, 4 notes", ""},
		{"check in the project", proj, nil, []string{"check", "scripts"}, 0, "1 script checked: 0 errors, 0 warnings, 4 notes", ""},
		{"check --exclude replaces check.exclude", proj, nil, []string{"check", "--exclude", "**/none/**", "scripts"}, 1, `unknown serviceId "no-such-service"`, ""},
		{"check --kind-map comes before scriptKinds", proj, nil, []string{"check", "--kind-map", "**/jobs/**=scriptService", "scripts"}, 1, `unknown serviceId "archive-cases"`, ""},
		{"check --project names another file", proj, nil, []string{"check", "--project", brokenFile, "scripts"}, 1, `unknown serviceId "archive-cases"`, ""},
		{"check --env", proj, nil, []string{"check", "--env", "broken", "scripts"}, 1, `unknown serviceId "archive-cases"`, ""},
		{"check --config-root overrides the file", proj, nil, []string{"check", "--config-root", "../config-broken", "scripts"}, 1, `unknown serviceId "archive-cases"`, ""},
		{"check: an unknown key is an error with its place", proj, nil, []string{"check", "--project", typo, "scripts"}, 2, "",
			typo + `:3:3: error: unknown key "exlude" in check: did you mean "exclude"?`},
		// test: found from the test file's directory.
		{"test", root, nil, []string{"test", "testdata/project/tests"}, 0, "1 passed, 0 failed", ""},
		{"test --env", root, nil, []string{"test", "--env", "broken", "testdata/project/tests"}, 1, "unknown-service", ""},
		{"test --handler-xml overrides the file key by key", root, nil, []string{"test", "--handler-xml", filepath.Join(root, "testdata/config-broken/script-handler-config/script-handler-api.xml"), "testdata/project/tests"}, 1, "unknown-service", ""},
		// run: found from the script.
		{"run", proj, nil, runJSON, 0, `"result": "archived C-1"`, ""},
		{"run decides the kind by scriptKinds", proj, nil, append([]string{"run", "--json"}, runJSON[4:]...), 0, `"kind": "scriptTask"`, ""},
		{"run --kind overrides scriptKinds", proj, nil, append([]string{"run", "--json", "--kind", "scriptService"}, runJSON[4:]...), 1, `"code": "unknown-service"`, ""},
		{"test decides the kind by scriptKinds", proj, nil, []string{"test", "--project", kindless, kindlessDir}, 0, "1 passed, 0 failed", ""},
		{"run --env", proj, nil, append([]string{"run", "--env", "broken"}, runJSON[1:]...), 1, `"code": "unknown-service"`, ""},
		{"run --config-root overrides the file", proj, nil, append([]string{"run", "--config-root", "../config-broken"}, runJSON[1:]...), 1, `"code": "unknown-service"`, ""},
		{"run --env unknown", proj, nil, append([]string{"run", "--env", "prd"}, runJSON[1:]...), 2, "", `has no environment "prd" (it defines broken, ci)`},
		// services: found from the working directory.
		{"services", proj, nil, []string{"services"}, 0, "12 services for scriptService", ""},
		{"services --env", proj, nil, []string{"services", "--env", "broken"}, 0, "6 services for scriptService", ""},
		{"services --env with a typo", proj, nil, []string{"services", "--env", "brokn"}, 2, "", `has no environment "brokn"; did you mean "broken"? (it defines broken, ci)`},
		{"RESTLS_CONFIG_ROOT overrides the file", proj, []string{"RESTLS_CONFIG_ROOT=../config-broken"}, []string{"services"}, 0, "6 services for scriptService", ""},
		{"services --project", other, nil, []string{"services", "--project", "restls.yaml"}, 0, "6 services for scriptService", ""},
		{"--env without a project file", other + "/..", nil, []string{"services", "--env", "ci"}, 2, "", "--env ci needs a project file"},
		{"serve refuses a project file with errors", proj, nil, []string{"serve", "--http", "127.0.0.1:0", "--project", typo}, 2, "", `unknown key "exlude"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, rc := runProject(t, tc.dir, tc.env, tc.args...)
			if rc != tc.rc || !strings.Contains(out, tc.out) || !strings.Contains(errs, tc.errs) {
				t.Errorf("restls %s: rc %d (want %d)\nstdout:\n%s\nstderr:\n%s", strings.Join(tc.args, " "), rc, tc.rc, out, errs)
			}
		})
	}
}

// TestServeHTTPProject: serve --http reads the project file (here named
// with --project): its configuration, and its openapi descriptions,
// attached to their serviceId.
func TestServeHTTPProject(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	file := filepath.Join(t.TempDir(), "restls.yaml")
	if err := os.WriteFile(file, []byte("configRoot: "+filepath.Join(root, "testdata", "config-broken")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startHTTP(t, nil, "--project", file)
	code, body := httpGet(t, p.base+"/v1/services?kind=scriptService")
	if code != 200 || strings.Contains(body, `"weather"`) || !strings.Contains(body, `"crm-orders"`) {
		t.Fatalf("GET /v1/services = %d %.300s", code, body)
	}
	code, body = httpGet(t, p.base+"/v1/schema/restls.json")
	if code != 200 || !strings.Contains(body, `"defaultEnvironment"`) {
		t.Fatalf("GET /v1/schema/restls.json = %d %.100s", code, body)
	}
}

// TestInit: restls init in a repository holding a platform directory
// writes restls.yaml (its content is workspace's golden files), with
// which restls check then needs no flag: the config root and the kind of
// tasks/ come from the file. A second init refuses to overwrite it.
func TestInit(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	repo := t.TempDir()
	copyFile := func(from, to string) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(root, from))
		if err != nil {
			t.Fatal(err)
		}
		to = filepath.Join(repo, filepath.FromSlash(to))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"application.yml", "config.xml", "script-code-config/script-service-api.xml", "script-handler-config/script-handler-api.xml"} {
		copyFile("testdata/config/"+f, "platform/webforms/"+f)
	}
	copyFile("testdata/project/scripts/jobs/archive-case.js", "scripts/tasks/archive-case.js")
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, errs, rc := runProject(t, repo, nil, "init")
	if rc != 0 || out != "wrote restls.yaml: read it, then run restls check\n" || errs != "" {
		t.Fatalf("init: rc %d\n%s%s", rc, out, errs)
	}
	written, err := os.ReadFile(filepath.Join(repo, "restls.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nconfigRoot: platform/webforms\n", "\nscriptKinds:\n  \"scripts/tasks/**\": scriptTask\n"} {
		if !strings.Contains(string(written), want) {
			t.Errorf("restls.yaml lacks %q:\n%s", want, written)
		}
	}
	out, errs, rc = runProject(t, filepath.Join(repo, "scripts"), nil, "check", ".")
	if rc != 0 || !strings.Contains(out, "1 script checked: 0 errors, 0 warnings, 4 notes") {
		t.Errorf("check with the file init wrote: rc %d\n%s%s", rc, out, errs)
	}
	_, errs, rc = runProject(t, repo, nil, "init", ".")
	if rc != 2 || !strings.Contains(errs, "restls.yaml is there already") {
		t.Errorf("second init: rc %d, %s", rc, errs)
	}
	if again, _ := os.ReadFile(filepath.Join(repo, "restls.yaml")); !bytes.Equal(again, written) {
		t.Error("the second init changed the file")
	}
	if _, errs, rc = runProject(t, repo, nil, "init", "a", "b"); rc != 2 || !strings.Contains(errs, "at most one DIR") {
		t.Errorf("init a b: rc %d, %s", rc, errs)
	}
}

// TestServeProject: the language server started in a project (as an
// editor starts it, in the workspace folder) takes restls.yaml's sources
// and scriptKinds as its defaults and names the file in restls/status:
// archive-case.js, with no kind directive, is a scriptTask by the file's
// kind map, so its handler serviceId is known, while skip/unknown.js is
// still checked (hints are on).
func TestServeProject(t *testing.T) {
	t.Parallel()
	proj := filepath.Join(repoRoot(t), "testdata", "project")
	status := make(chan map[string]any, 8)
	type published struct {
		URI         uri.URI `json:"uri"`
		Diagnostics []struct {
			Code    any    `json:"code"`
			Message string `json:"message"`
		} `json:"diagnostics"`
	}
	diags := make(chan published, 16)
	handler := func(_ context.Context, req *jsonrpc2.Request) (any, error) {
		switch req.Method() {
		case "restls/status":
			var m map[string]any
			_ = json.Unmarshal(req.Params(), &m)
			status <- m
		case protocol.MethodTextDocumentPublishDiagnostics:
			var d published
			_ = json.Unmarshal(req.Params(), &d)
			diags <- d
		}
		return nil, nil
	}
	cmd := restlsCommand(t, "serve", "--stdio")
	cmd.Dir = proj
	p := startServeCommand(t, cmd, handler)
	var init protocol.InitializeResult
	if err := p.call(t, protocol.MethodInitialize, &protocol.InitializeParams{}, &init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	_ = p.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{})
	select {
	case st := <-status:
		if st["project"] != filepath.Join(proj, "restls.yaml") {
			t.Errorf("restls/status project = %v, want %s", st["project"], filepath.Join(proj, "restls.yaml"))
		}
		if src, _ := st["sources"].(map[string]any); src["configRoot"] != filepath.Join("..", "config") {
			t.Errorf("restls/status sources = %v", st["sources"])
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no restls/status; stderr:\n%s", p.stderr.String())
	}
	open := func(rel string) uri.URI {
		path := filepath.Join(proj, filepath.FromSlash(rel))
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		u := uri.File(path)
		_ = p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "javascript", Version: 1, Text: string(text)}})
		return u
	}
	task, unknown := open("scripts/jobs/archive-case.js"), open("scripts/skip/unknown.js")
	// Configuration files are published too (their informations): wait
	// for the two scripts.
	got := map[uri.URI][]string{}
	for _, ok := got[task]; !ok || got[unknown] == nil; _, ok = got[task] {
		select {
		case d := <-diags:
			codes := []string{}
			for _, x := range d.Diagnostics {
				codes = append(codes, fmt.Sprint(x.Code))
			}
			got[d.URI] = codes
		case <-time.After(30 * time.Second):
			t.Fatalf("diagnostics of %d documents only: %v", len(got), got)
		}
	}
	if len(got[task]) != 0 {
		t.Errorf("archive-case.js: %v, want none (a scriptTask by restls.yaml's scriptKinds)", got[task])
	}
	if !slices.Contains(got[unknown], "unknown-service") {
		t.Errorf("unknown.js: %v, want unknown-service", got[unknown])
	}
}

// TestCheckProjectSettings: check.strict is --strict's default, which
// --strict=false overrides, and check.disable drops a code's findings.
func TestCheckProjectSettings(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	config := "configRoot: " + filepath.Join(root, "testdata", "config") + "\n"
	strict := write("strict.yaml", config+"check:\n  strict: true\n")
	disable := write("disable.yaml", config+"check:\n  strict: true\n  disable: [hardcoded-authorization]\n")
	write("scripts/a.js", "return api.rest.v1.get(\"crm-orders\", {}, { Authorization: \"Basic x\" });\n")
	for _, tc := range []struct {
		args []string
		rc   int
		out  string
	}{
		{[]string{"check", "--project", strict, "scripts"}, 1, "[hardcoded-authorization]"},
		{[]string{"check", "--project", strict, "--strict=false", "scripts"}, 0, "[hardcoded-authorization]"},
		{[]string{"check", "--project", disable, "scripts"}, 0, "1 script checked: 0 errors, 0 warnings, 4 notes"},
	} {
		out, errs, rc := runProject(t, dir, nil, tc.args...)
		if rc != tc.rc || !strings.Contains(out, tc.out) {
			t.Errorf("restls %s: rc %d (want %d)\n%s%s", strings.Join(tc.args, " "), rc, tc.rc, out, errs)
		}
	}
}

// TestServeFoundProjectWithErrors: the language server an editor starts
// in a folder whose restls.yaml has a typo still serves (without the
// file, saying so on stderr), where restls check stops.
func TestServeFoundProjectWithErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "restls.yaml"), []byte("configRot: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := restlsCommand(t, "serve", "--stdio")
	cmd.Dir = dir
	p := startServeCommand(t, cmd, nil)
	var init protocol.InitializeResult
	if err := p.call(t, protocol.MethodInitialize, &protocol.InitializeParams{}, &init); err != nil {
		t.Fatalf("initialize: %v\n%s", err, p.stderr.String())
	}
	if err := p.call(t, protocol.MethodShutdown, nil, nil); err != nil {
		t.Fatal(err)
	}
	_ = p.conn.Notify(context.Background(), protocol.MethodExit, nil)
	if rc := p.wait(t); rc != 0 {
		t.Errorf("exit status %d", rc)
	}
	if errs := p.stderr.String(); !strings.Contains(errs, `restls.yaml:1:1: error: unknown key "configRot": did you mean "configRoot"?`) || !strings.Contains(errs, "serving without it") {
		t.Errorf("stderr:\n%s", errs)
	}
	if _, errs, rc := runProject(t, dir, nil, "check", "."); rc != 2 || !strings.Contains(errs, "has errors") {
		t.Errorf("check: rc %d\n%s", rc, errs)
	}
}

// TestProjectFoundOutsideRepository: outside a git repository, `restls
// check scripts`, `restls test scripts` and `restls run scripts/a.js`,
// started in the project's directory, use the restls.yaml there, as
// `restls check` from that directory does. They looked only in scripts/
// and checked against no configuration.
func TestProjectFoundOutsideRepository(t *testing.T) {
	t.Parallel()
	proj := t.TempDir()
	if r := input.RepoRoot(proj); r != "" {
		t.Skipf("the temporary directory is inside the git repository %s", r)
	}
	for name, text := range map[string]string{
		"restls.yaml":                  "configRoot: platform\n",
		"platform/application.yml":     "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com\n",
		"scripts/a.js":                 "return api.rest.v1.get(\"crm\", {}, {}).body.n;\n",
		"scripts/a.mock.yaml":          "fixtures:\n  - serviceId: crm\n    body: {n: 1}\n",
		"scripts/a.test.yaml":          "script: a.js\nfixtures:\n  - serviceId: crm\n    body: {n: 1}\ncases:\n  - name: one\n    result: 1\n",
		"elsewhere/not-the-project.md": "",
	} {
		p := filepath.Join(proj, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		dir  string
		args []string
		rc   int
		out  string
	}{
		{proj, []string{"check"}, 0, "1 script checked: no problems"},
		{proj, []string{"check", "scripts"}, 0, "1 script checked: no problems"},
		{proj, []string{"check", filepath.Join(proj, "scripts")}, 0, "1 script checked: no problems"},
		{proj, []string{"test", "scripts"}, 0, "1 passed, 0 failed"},
		{proj, []string{"run", "--mock", "scripts/a.mock.yaml", "scripts/a.js"}, 0, "1"},
		// A working directory that does not hold the start: only the
		// start's own directory, so no file from a shared parent.
		{filepath.Join(proj, "elsewhere"), []string{"check", filepath.Join(proj, "scripts")}, 2, ""},
	} {
		out, errs, rc := runProject(t, tc.dir, nil, tc.args...)
		if rc != tc.rc || !strings.Contains(out, tc.out) {
			t.Errorf("in %s: restls %s: rc %d (want %d), want %q in stdout\nstdout:\n%s\nstderr:\n%s", tc.dir, strings.Join(tc.args, " "), rc, tc.rc, tc.out, out, errs)
		}
	}
}
