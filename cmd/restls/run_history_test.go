package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/restls/restls/internal/goldentest"
)

// TestRunSaveAndDiffWith: restls run --save keeps runs in $RESTLS_HISTORY;
// --diff-with last compares with the last one kept, --diff-with FILE with
// a restls run --json output; the exit status is the run's either way.
func TestRunSaveAndDiffWith(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	dir := t.TempDir()
	hist := filepath.Join(t.TempDir(), "history")
	env := map[string]string{envHistory: hist}
	script := filepath.Join(dir, "companies.js")
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("companies.js", `var r = api.rest.v1.get("registry", {pathParams: ["companies", "42"]}, {});
if (r.body.fail) { throw new Error("failed on purpose"); }
return {name: r.body.name};`)
	fixtures := func(name, body string, status int) string {
		return write(name, "fixtures:\n- serviceId: registry\n  path: companies/42\n  status: "+strconv.Itoa(status)+"\n  headers: {date: \"Mon\"}\n  body: "+body+"\n")
	}
	// Names with & and <b>: the diff shows them as they are, not as
	// JSON for HTML (\u0026, \u003cb\u003e).
	one := fixtures("one.mock.yaml", `{name: "ACME & Co", n: 1}`, 200)
	two := fixtures("two.mock.yaml", `{name: "<b>Acme</b>", n: 2, fail: true}`, 200)
	cfg := []string{"--config-root", filepath.Join(root, "testdata/config"), "--color", "never"}
	runArgs := func(extra ...string) []string {
		return append(append([]string{"run"}, cfg...), append(extra, script)...)
	}

	// No run kept yet: said on stderr, the run's status unchanged.
	out, errs, rc := run(t, env, runArgs("--mock", one, "--diff-with", "last")...)
	if rc != 0 || !strings.Contains(errs, "no run of "+script+" is kept yet") || strings.Contains(out, "diff:") {
		t.Fatalf("rc %d\nstdout %s\nstderr %s", rc, out, errs)
	}
	if _, _, rc = run(t, env, runArgs("--mock", one, "--save")...); rc != 0 {
		t.Fatalf("--save: rc %d", rc)
	}
	jsonOut, _, _ := run(t, env, runArgs("--mock", one, "--json")...)
	oneJSON := write("one.json", jsonOut)

	// The second answers make the script throw: the status is 1 with or
	// without a diff.
	_, _, plain := run(t, env, runArgs("--mock", two)...)
	out, errs, rc = run(t, env, runArgs("--mock", two, "--diff-with", "last", "--save")...)
	if rc != 1 || plain != 1 || errs != "" {
		t.Fatalf("rc %d (without the diff %d), stderr %s", rc, plain, errs)
	}
	_, last, _ := strings.Cut(out, "\ndiff: ")
	last = "diff: " + last
	if i := strings.Index(last, "the last run ("); i >= 0 {
		j := strings.Index(last[i:], ")")
		last = last[:i] + "the last run (TIME" + last[i+j:]
	}
	out, _, _ = run(t, env, runArgs("--mock", one, "--diff-with", oneJSON)...)
	_, same, _ := strings.Cut(out, "\ndiff: ")
	goldentest.Check(t, "testdata/golden/run/diff-with.txt", strings.ReplaceAll(last, dir, "$DIR")+"-- against one.json --\ndiff: "+strings.ReplaceAll(same, dir, "$DIR"))

	// Two runs are kept, in a private directory.
	entries, err := filepath.Glob(filepath.Join(hist, "*", "*.json"))
	if err != nil || len(entries) != 2 {
		t.Fatalf("kept %v %v", entries, err)
	}
	if st, err := os.Stat(filepath.Dir(entries[0])); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("history directory mode: %v %v", st.Mode(), err)
	}

	// Usage errors.
	for _, args := range [][]string{
		{"run", "--save", "-"},
		{"run", "--diff-with", "last", "--json", script},
	} {
		if _, errs, rc := run(t, env, args...); rc != 2 || !strings.Contains(errs, "--diff-with") {
			t.Errorf("%v: rc %d, %s", args, rc, errs)
		}
	}
	if _, errs, rc := run(t, env, runArgs("--mock", one, "--diff-with", filepath.Join(dir, "companies.js"))...); rc != 0 || !strings.Contains(errs, "not a history entry") {
		t.Errorf("a script as --diff-with: rc %d, %s", rc, errs)
	}
}

// TestRunSaveBinary: --save and --diff-with last through the binary, where
// the run is a supervised child process (runtime/isolate) that inherits
// RESTLS_HISTORY.
func TestRunSaveBinary(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	dir := t.TempDir()
	hist := filepath.Join(t.TempDir(), "history")
	script := filepath.Join(dir, "s.js")
	if err := os.WriteFile(script, []byte(`return api.rest.v1.get("registry", {pathParams: ["x"]}, {}).body;`), 0o644); err != nil {
		t.Fatal(err)
	}
	mock := func(n string) string {
		p := filepath.Join(dir, "m"+n+".mock.yaml")
		if err := os.WriteFile(p, []byte("fixtures:\n- {serviceId: registry, body: {n: "+n+"}}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one, two := mock("1"), mock("2")
	restlsRun := func(args ...string) (string, int) {
		cmd := restlsCommand(t, append([]string{"run", "--config-root", filepath.Join(root, "testdata/config"), "--color", "never"}, args...)...)
		cmd.Env = append(cmd.Env, envHistory+"="+hist)
		out, err := cmd.CombinedOutput()
		code := 0
		if err != nil {
			code = cmd.ProcessState.ExitCode()
		}
		return string(out), code
	}
	if out, rc := restlsRun("--mock", one, "--save", script); rc != 0 {
		t.Fatalf("rc %d: %s", rc, out)
	}
	out, rc := restlsRun("--mock", two, "--diff-with", "last", script)
	if rc != 0 || !strings.Contains(out, "    body $.n: 1 → 2\n") || !strings.Contains(out, "    result $.n: 1 → 2\n") {
		t.Fatalf("rc %d: %s", rc, out)
	}
	if runs, _ := filepath.Glob(filepath.Join(hist, "*", "*.json")); len(runs) != 1 {
		t.Errorf("kept %d runs, want the one --save kept", len(runs))
	}
}

// TestRunSaveLeavesSharedDirectory is issue 33's point 8 through the
// binary: restls run --save with RESTLS_HISTORY naming a directory that
// exists (a shared one, 1777 as /tmp) made it 0700. Now it keeps its
// mode; the run's own directory is 0700.
func TestRunSaveLeavesSharedDirectory(t *testing.T) {
	t.Parallel()
	if goruntime.GOOS == "windows" {
		t.Skip("no POSIX modes")
	}
	root := repoRoot(t)
	dir := t.TempDir()
	shared := t.TempDir()
	if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "s.js")
	if err := os.WriteFile(script, []byte(`return 1;`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := restlsCommand(t, "run", "--config-root", filepath.Join(root, "testdata/config"), "--save", script)
	cmd.Env = append(cmd.Env, envHistory+"="+shared)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if fi, err := os.Stat(shared); err != nil || fi.Mode()&(os.ModePerm|os.ModeSticky) != 0o777|os.ModeSticky {
		t.Errorf("RESTLS_HISTORY's directory is now %v (%v), want it left 1777", fi.Mode(), err)
	}
	runs, _ := filepath.Glob(filepath.Join(shared, "*", "*.json"))
	if len(runs) != 1 {
		t.Fatalf("kept %d runs, want 1", len(runs))
	}
	if fi, err := os.Stat(filepath.Dir(runs[0])); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the script's directory is %v (%v), want 0700", fi.Mode(), err)
	}
}

// TestRunTimeoutThroughBinary is issue 33's point 25 through the binary
// (restls run supervises the script in a child): a script out of time
// while a call waits ends with script-timeout at the call, and one in an
// empty while (true) {} after a call is shown at the loop, not the call.
func TestRunTimeoutThroughBinary(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	dir := t.TempDir()
	mock := filepath.Join(dir, "m.mock.yaml")
	if err := os.WriteFile(mock, []byte("fixtures:\n- {serviceId: registry, path: slow, delay: 10s, body: {}}\n- {serviceId: registry, body: {}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		src, want string
		line      int
	}{
		{"var a = 1;\nvar r = api.rest.v1.get(\"registry\", {pathParams: [\"slow\"]}, {});\nreturn r.body;\n", "while its call to registry waited for an answer", 2},
		{"var r = api.rest.v1.get(\"registry\", {}, {});\nwhile (true) {}\n", "look for a loop that never ends", 2},
	} {
		script := filepath.Join(dir, "s.js")
		if err := os.WriteFile(script, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := restlsCommand(t, "run", "--config-root", filepath.Join(root, "testdata/config"), "--mock", mock, "--timeout", "300ms", "--json", script)
		out, _ := cmd.Output()
		var got struct {
			Error struct {
				Name, Code, Message string
				Line                int
			}
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		if e := got.Error; e.Code != "script-timeout" || e.Name != "TimeoutError" || e.Line != tc.line || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: error %+v, want script-timeout at line %d, %q", tc.src, e, tc.line, tc.want)
		}
	}
}
