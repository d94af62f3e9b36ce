package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/restls/restls/internal/goldentest"
)

// runIn runs the real binary in dir with no input and returns what it
// printed, as the golden files of testdata/golden/cli hold it.
func runIn(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	cmd := restlsCommand(t, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	rc := 0
	if err := cmd.Run(); err != nil {
		if cmd.ProcessState == nil {
			t.Fatal(err)
		}
		rc = cmd.ProcessState.ExitCode()
	}
	return "stdout:\n" + stdout.String() + "stderr:\n" + stderr.String(), rc
}

// TestVersionFlag: `restls --version` (and -version, as every flag of
// restls may be written) is `restls version`, flags included; -v is not
// taken (it is the verbose flag of run and test) but points at --version.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	want, rc := runIn(t, root, "version")
	if rc != 0 || !strings.HasPrefix(want, "stdout:\nrestls ") {
		t.Fatalf("restls version: exit %d\n%s", rc, want)
	}
	wantJSON, _ := runIn(t, root, "version", "--json")
	for _, args := range [][]string{{"--version"}, {"-version"}} {
		if got, rc := runIn(t, root, args...); rc != 0 || got != want {
			t.Errorf("restls %s: exit %d\n%s\nwant exit 0 and\n%s", args[0], rc, got, want)
		}
		if got, rc := runIn(t, root, args[0], "--json"); rc != 0 || got != wantJSON {
			t.Errorf("restls %s --json: exit %d\n%s\nwant exit 0 and\n%s", args[0], rc, got, wantJSON)
		}
	}
	got, rc := runIn(t, root, "-v")
	if rc != 2 {
		t.Errorf("restls -v: exit %d, want 2", rc)
	}
	goldentest.Check(t, "testdata/golden/cli/dash-v.txt", got)
}

// TestTestMissingPath: `restls test` given a path that does not exist
// says so in words, with or without a configuration, before any
// complaint about the configuration.
func TestTestMissingPath(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	empty := t.TempDir() // no configuration here
	for _, tc := range []struct {
		name, dir string
		args      []string
	}{
		{"test-missing-path", root, []string{"test", "--config-root", "testdata/config", "nonexistdir"}},
		{"test-missing-path-no-config", empty, []string{"test", "nonexistdir"}},
		{"test-missing-path-missing-root", empty, []string{"test", "--config-root", "no-such-root", "nonexistdir"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, rc := runIn(t, tc.dir, tc.args...)
			if rc != 2 {
				t.Errorf("exit %d, want 2", rc)
			}
			goldentest.Check(t, filepath.Join("testdata/golden/cli", tc.name+".txt"), got)
		})
	}
	// A path that exists but holds no test file is a different slip.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.js"), []byte("return 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, rc := runIn(t, root, "test", "--config-root", "testdata/config", dir)
	if rc != 2 || !strings.Contains(got, "no test files (*.test.yaml) found") {
		t.Errorf("a directory without test files: exit %d\n%s", rc, got)
	}
}

// TestTestUpdateAdopts is docs/ci.md's adoption workflow: a test file
// whose cases give only their input (they expect nothing, so they pass)
// gets the actual result and calls written by --update; a case that
// expects something and passes stays as written, comments stay; a plain
// run then passes, and a second --update changes nothing.
func TestTestUpdateAdopts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join("testdata", "scripttest", "summary.js"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.js"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	adopt := filepath.Join(dir, "adopt.test.yaml")
	if err := os.WriteFile(adopt, []byte(`# Adopted with restls test --update.
script: summary.js
fixtures:
  - serviceId: crm-customers
    path: "1"
    body: { id: 1, name: Ann, tags: [a, b] }
  - serviceId: crm-customers
    path: "2"
    status: 404
    body: { error: no customer 2 }
cases:
  - name: known customer   # expects nothing yet
    input: { id: "1" }
  - name: checked already
    input: { id: "1" }
    resultMatch: { name: Ann }
  - name: unknown customer
    input: { id: "2" }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	single := filepath.Join(dir, "single.test.yaml")
	if err := os.WriteFile(single, []byte("script: summary.js\ninput: { id: \"1\" }\nfixtures:\n  - { serviceId: crm-customers, body: { id: 1, name: Bo } }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	config, _ := filepath.Abs("../../testdata/config")
	stdout, _, rc := runBinary(t, "test", "--config-root", config, "--update", dir)
	if rc != 0 || !strings.Contains(stdout, "3 updated") {
		t.Errorf("--update: exit %d, want 0 and 3 updated (two cases that expect nothing, one that fails)\n%s", rc, stdout)
	}
	got, err := os.ReadFile(adopt)
	if err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "test", "adopted.test.yaml"), string(got))
	gotSingle, err := os.ReadFile(single)
	if err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "test", "adopted-single.test.yaml"), string(gotSingle))
	if stdout, _, rc := runBinary(t, "test", "--config-root", config, dir); rc != 0 {
		t.Errorf("a plain run after --update: exit %d, want 0\n%s", rc, stdout)
	}
	stdout, _, rc = runBinary(t, "test", "--config-root", config, "--update", dir)
	if again, _ := os.ReadFile(adopt); rc != 0 || strings.Contains(stdout, "updated") || string(again) != string(got) {
		t.Errorf("a second --update: exit %d, want 0 with nothing updated and the file unchanged\n%s", rc, stdout)
	}
}

// TestRunPointsWhereCheckDoes: for an unknown or unusable serviceId,
// `restls run --json` gives the line and column restls check gives (the
// serviceId literal, in characters), not the call's bracket; the preview's
// caret stands under it.
func TestRunPointsWhereCheckDoes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	props := writeFile(t, dir, "application.yml", "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com/api\n    - serviceId: broken\n      url: nowhere/x\n")
	for _, src := range []string{
		"var r = api.rest.v1.get(\"crn\", {}, {});\n",
		"api.rest.v1.get (\"crn\", {}, {});\n",
		"var a = 1;\napi.rest.v1.get(\n  \"crn\", {}, {});\n",
		"var é = \"é\"; api.rest.v1.get('crn', {}, {});\n",
		"api.rest.v1.post(/* id */ \"broken\", {}, {}, {});\n",
	} {
		script := writeFile(t, dir, "s.js", src)
		out, _, rc := runBinary(t, "check", "--format", "json", "--properties", props, script)
		var checked struct {
			Diagnostics []struct {
				File, Code   string
				Line, Column int
			}
		}
		if err := json.Unmarshal([]byte(out), &checked); err != nil || rc != 1 {
			t.Fatalf("%q: check: exit %d, %v\n%s", src, rc, err, out)
		}
		checked.Diagnostics = slices.DeleteFunc(checked.Diagnostics, func(d struct {
			File, Code   string
			Line, Column int
		}) bool {
			return d.File != script // the configuration's own diagnostics
		})
		if len(checked.Diagnostics) != 1 {
			t.Fatalf("%q: check found %d diagnostics in the script, want 1\n%s", src, len(checked.Diagnostics), out)
		}
		want := checked.Diagnostics[0]
		out, _, rc = runBinary(t, "run", "--json", "--properties", props, script)
		var ran struct {
			Error *struct {
				Code, SourceLine string
				Line, Column     int
			}
		}
		if err := json.Unmarshal([]byte(out), &ran); err != nil || rc != 1 || ran.Error == nil {
			t.Fatalf("%q: run: exit %d, %v\n%s", src, rc, err, out)
		}
		if e := ran.Error; e.Line != want.Line || e.Column != want.Column {
			t.Errorf("%q: run says %s at %d:%d, check says %s at %d:%d", src, e.Code, e.Line, e.Column, want.Code, want.Line, want.Column)
		}
		out, _, _ = runBinary(t, "run", "--color", "never", "--properties", props, script)
		caret := fmt.Sprintf("%d:%d: RestClientError", want.Line, want.Column)
		lines := strings.Split(out, "\n")
		for i, l := range lines {
			if strings.Contains(l, caret) && i+2 < len(lines) {
				under := []rune(lines[i+2])
				prefix := len([]rune("       | "))
				if len(under) != prefix+want.Column || under[len(under)-1] != '^' {
					t.Errorf("%q: the caret is not under column %d (%d runes):\n%q\n%q", src, want.Column, len(under), lines[i+1], lines[i+2])
				}
				caret = ""
				break
			}
		}
		if caret != "" {
			t.Errorf("%q: the preview does not name %s\n%s", src, caret, out)
		}
	}
}

// TestRunEndsEarly: `return 1+` is an expression the script's end cut
// short, not a block left open; the preview says so (golden).
func TestRunEndsEarly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := writeFile(t, dir, "early.js", "var total = 1;\nreturn total +\n")
	out, errs, rc := runBinary(t, "run", "--color", "never", "--config-root", filepath.Join(repoRoot(t), "testdata/config"), script)
	if rc != 1 || errs != "" {
		t.Fatalf("exit %d, stderr %q, want 1 and nothing\n%s", rc, errs, out)
	}
	out = strings.ReplaceAll(out, dir, "$TMP")
	out = runTook.ReplaceAllString(out, "${1}DURATION)")
	goldentest.Check(t, filepath.Join("testdata", "golden", "run", "ends-early.txt"), out)
}

// TestUntrustedTextIsEscaped: file names, case names, console output and
// response bodies that carry terminal control sequences (clear the
// screen, set the window title, a bidirectional override) reach the text
// outputs of check, test and run escaped: the only control characters
// printed are line ends, tabs and, with --color always, restls's own
// colours.
func TestUntrustedTextIsEscaped(t *testing.T) {
	t.Parallel()
	const evil = "\x1b[2J\x1b]0;pwned\x07\u202e"
	const shown = `\x1b[2J\x1b]0;pwned\x07\u202e`
	cfg := filepath.Join(repoRoot(t), "testdata/config")
	dir := t.TempDir()
	script := writeFile(t, dir, "s"+evil+".js", "console.log(\"log "+"\\u001b[2J\\u001b]0;pwned\\u0007\\u202e"+"\");\n"+
		"var r = api.rest.v1.get(\"crm-customers\", {pathParams: [\"1\"]}, {});\n"+
		"return api.rest.v1.get(\"crn\", {}, {});\n")
	mock := writeFile(t, dir, "m.mock.yaml", "fixtures:\n  - serviceId: crm-customers\n    headers: {Content-Type: text/plain}\n    bodyText: \"body \\e[2J\\e]0;pwned\\a\\u202e\"\n")
	writeFile(t, dir, "t"+evil+".test.yaml", "script: \"s\\e[2J\\e]0;pwned\\a\\u202e.js\"\nfixtures: m.mock.yaml\ncases:\n  - name: \"case \\e[2J\\e]0;pwned\\a\\u202e\"\n    result: 1\n")
	clean := func(name, out string, colours bool) {
		t.Helper()
		if colours {
			for _, code := range []string{"\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[1;31m", "\x1b[3", "\x1b[32m"} {
				out = strings.ReplaceAll(out, code, "")
			}
		}
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r == 0x202e {
				t.Errorf("%s: prints %U raw:\n%q", name, r, out)
				return
			}
		}
		if !strings.Contains(out, shown) {
			t.Errorf("%s: does not show the escaped text %s:\n%s", name, shown, out)
		}
	}
	for _, format := range []string{"text", "github"} {
		out, _, rc := runBinary(t, "check", "--format", format, "--config-root", cfg, dir)
		if rc != 1 {
			t.Errorf("check --format %s: exit %d, want 1\n%s", format, rc, out)
		}
		clean("check --format "+format, out, false)
	}
	out, _, rc := runBinary(t, "test", "-v", "--config-root", cfg, dir)
	if rc != 1 {
		t.Errorf("test: exit %d, want 1\n%s", rc, out)
	}
	clean("test", out, false)
	if !strings.Contains(out, "case "+shown) {
		t.Errorf("test: the case name is not shown escaped:\n%s", out)
	}
	for _, colour := range []string{"never", "always"} {
		out, _, rc = runBinary(t, "run", "--color", colour, "--config-root", cfg, "--mock", mock, script)
		if rc != 1 {
			t.Errorf("run --color %s: exit %d, want 1\n%s", colour, rc, out)
		}
		clean("run --color "+colour, out, colour == "always")
		for _, want := range []string{"log " + shown, "body " + shown, "run " + filepath.Join(dir, "s"+shown+".js")} {
			if !strings.Contains(out, want) {
				t.Errorf("run --color %s: %q is not shown escaped:\n%s", colour, want, out)
			}
		}
	}
}

// TestCheckNoConfiguration: `restls check` where no configuration is
// found exits 2 with test's message (a CI job started in the wrong
// directory would otherwise check no serviceId and pass); a configuration
// that exists but is empty still checks. Both through the binary.
func TestCheckNoConfiguration(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	writeFile(t, empty, "a.js", "return 1;\n")
	got, rc := runIn(t, empty, "check", ".")
	if rc != 2 {
		t.Errorf("check without configuration: exit %d, want 2\n%s", rc, got)
	}
	goldentest.Check(t, "testdata/golden/cli/check-no-config.txt", got)
	// It names the first step of a new project: restls init.
	for _, args := range [][]string{{"check", "."}, {"run", "a.js"}} {
		if out, _ := runIn(t, empty, args...); !strings.Contains(out, "run restls init in the project to write restls.yaml") {
			t.Errorf("restls %s without configuration does not point at restls init:\n%s", strings.Join(args, " "), out)
		}
	}
	// test says the same words in the same case.
	writeFile(t, empty, "a.test.yaml", "script: a.js\ntests:\n  - name: one\n    result: 1\n")
	if tgot, rc := runIn(t, empty, "test", "."); rc != 2 || !strings.Contains(tgot, "restls test: "+errNoConfiguration) {
		t.Errorf("test without configuration: exit %d\n%s", rc, tgot)
	}

	existing := t.TempDir()
	writeFile(t, existing, "application.yml", "")
	writeFile(t, existing, "a.js", "return 1;\n")
	if got, rc := runIn(t, existing, "check", "--config-root", existing, existing); rc != 0 {
		t.Errorf("check with an empty application.yml: exit %d, want 0\n%s", rc, got)
	}
}
