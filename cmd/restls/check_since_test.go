package main

import (
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/internal/goldentest"
)

// sinceRepo builds a git repository of four commits: the base, then an
// id removed (hr), a URL moved (crm to another host), an auth kind
// changed (pay from basic to oAuth). Its scripts call each, one of them
// as a scriptTask, which reads the handler XML where nothing changes.
func sinceRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	yml := func(hr, crm, pay string) string {
		return "scriptservice:\n  api:\n    - serviceId: crm\n      url: " + crm + "\n" + hr +
			"    - serviceId: pay\n      url: https://pay.example.com\n" + pay +
			"  oAuth:\n    - id: o\n      url: https://auth.example.com/token\n      grantType: client_credentials\n" +
			"      clientAuthenticationMethod: client_secret_post\n      clientId: c\n      clientSecret: very-secret-value\n"
	}
	hr := "    - serviceId: hr\n      url: https://hr.example.com\n"
	basic := "      authorization:\n        type: basic\n        encodedCredentials: dXNlcjpzM2NyZXQ=\n"
	oauth := "      authorization:\n        type: oAuth\n        id: o\n"
	writeTree(t, dir, map[string]string{
		"config/application.yml":                              yml(hr, "https://crm.example.com/v1", basic),
		"config/script-handler-config/script-handler-api.xml": `<scriptservice><api serviceId="tasks" url="https://tasks.example.com"/></scriptservice>`,
		"scripts/orders.js":                                   "var c = api.rest.v1.get(\"crm\", {pathParams: [\"orders\"]}, {});\nvar p = api.rest.v1.post(\"pay\", {}, {}, {});\n",
		"scripts/people.js":                                   "api.rest.v1.get(\"hr\", {}, {});\n",
		"scripts/task.js":                                     "// restls-kind: scriptTask\napi.rest.v1.get(\"tasks\", {}, {});\napi.rest.v1.get(\"crm\", {}, {});\n",
	})
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	for _, c := range []struct{ msg, text string }{
		{"hr removed", yml("", "https://crm.example.com/v1", basic)},
		{"crm moved", yml("", "https://crm2.example.com/v1", basic)},
		{"pay by oAuth", yml("", "https://crm2.example.com/v1", oauth)},
	} {
		writeTree(t, dir, map[string]string{"config/application.yml": c.text})
		git("commit", "-q", "-am", c.msg)
	}
	return dir
}

// TestCheckSince: each commit's change shows on the calls it affects, in
// every format; a clean comparison adds nothing; a bad REF and a
// directory outside git are usage errors.
func TestCheckSince(t *testing.T) {
	t.Parallel()
	dir := sinceRepo(t)
	args := func(extra ...string) []string {
		return append([]string{"check", "--config-root", filepath.Join(dir, "config"), filepath.Join(dir, "scripts")}, extra...)
	}
	clean := func(s string) string {
		s = strings.ReplaceAll(s, dir, "$REPO")
		return strings.ReplaceAll(s, `"version": "`+versionString()+`"`, `"version": "$VERSION"`)
	}
	for _, f := range []struct{ name, ext string }{{"text", "txt"}, {"json", "json"}, {"sarif", "sarif"}, {"github", "txt"}} {
		t.Run(f.name, func(t *testing.T) {
			out, errs, rc := run(t, nil, args("--since", "HEAD~3", "--format", f.name)...)
			// hr is unknown now: an error of the working tree itself.
			if rc != 1 || errs != "" {
				t.Errorf("exit %d, stderr %q; want 1 and nothing", rc, errs)
			}
			goldentest.Check(t, filepath.Join("testdata", "golden", "check_since", f.name+"."+f.ext), clean(out))
		})
	}
	codes := func(out string) []string {
		var got []string
		for _, l := range strings.Split(out, "\n") {
			if i := strings.LastIndex(l, "[since-"); i >= 0 {
				got = append(got, strings.TrimSuffix(l[i+1:], "]"))
			}
		}
		return got
	}
	for _, tc := range []struct {
		ref  string
		want string
	}{
		{"HEAD~1", "since-auth-changed"},
		{"HEAD~2", "since-url-changed since-auth-changed since-url-changed"},
		{"HEAD", ""},
	} {
		out, _, _ := run(t, nil, args("--since", tc.ref)...)
		if got := strings.Join(codes(out), " "); got != tc.want {
			t.Errorf("--since %s: codes %q, want %q\n%s", tc.ref, got, tc.want, out)
		}
	}
	for _, tc := range []struct{ name, ref, dir, want string }{
		{"no such commit", "nosuch", dir, "no such commit"},
		{"an option", "--output=x", dir, "name a git revision"},
		{"outside git", "HEAD", t.TempDir(), "not in a git repository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.dir != dir {
				writeTree(t, tc.dir, map[string]string{"config/application.yml": "scriptservice:\n  api: []\n", "a.js": ""})
			}
			_, errs, rc := run(t, nil, "check", "--config-root", filepath.Join(tc.dir, "config"), "--since="+tc.ref, tc.dir)
			if rc != 2 || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", rc, errs, tc.want)
			}
		})
	}
}

// TestServicesDiffAcrossCommits: services --diff between the base commit
// of the same repository (a git worktree of HEAD~3) and the working tree
// names the three changes, as check --since reports them on the calls.
func TestServicesDiffAcrossCommits(t *testing.T) {
	t.Parallel()
	dir := sinceRepo(t)
	base := filepath.Join(t.TempDir(), "base")
	cmd := exec.Command("git", "worktree", "add", "-q", "--detach", base, "HEAD~3")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git worktree: %v\n%s", err, out)
	}
	out, errs, rc := run(t, nil, "services", "--diff", "--kind", "scriptService", filepath.Join(base, "config"), filepath.Join(dir, "config"))
	if rc != 1 || errs != "" {
		t.Fatalf("exit %d, stderr %q; want 1", rc, errs)
	}
	for _, want := range []string{
		"crm: url: https://crm.example.com/v1 -> https://crm2.example.com/v1",
		"hr: missing: https://hr.example.com -> not configured",
		"pay: auth: basic -> oAuth client_credentials",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("services --diff lacks %q:\n%s", want, out)
		}
	}
}

// TestCheckSincePartialClone: in a partial clone (git clone
// --filter=blob:none, as CI checkouts often are) REF's configuration
// files are fetched from the remote when read. A reachable remote gives
// the same findings as a full clone; a remote that is gone is an error
// naming the file and the partial clone (before, the failed fetch read as
// "absent at REF" and the gate passed); a remote that never answers, with
// a helper that ignores SIGTERM and keeps git's stderr open, is stopped
// at the git bound plus its grace (before, restls waited for the helper).
func TestCheckSincePartialClone(t *testing.T) {
	// Not in parallel: it sets PATH (t.Setenv) and the package's git timeouts.
	src := sinceRepo(t)
	gitIn := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	gitIn(src, "config", "uploadpack.allowFilter", "true")
	clone := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "clone")
		gitIn(src, "clone", "-q", "--filter=blob:none", "file://"+src, dir)
		return dir
	}
	check := func(dir string) (string, string, int) {
		return run(t, nil, "check", "--config-root", filepath.Join(dir, "config"), "--since", "HEAD~2", filepath.Join(dir, "scripts"))
	}

	t.Run("reachable", func(t *testing.T) {
		out, errs, rc := check(clone(t))
		want, _, _ := check(src)
		if rc != 1 || errs != "" || strings.Count(out, "[since-") != 3 || strings.Count(want, "[since-") != 3 {
			t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant the full clone's three since findings:\n%s", rc, errs, out, want)
		}
	})
	t.Run("remote gone", func(t *testing.T) {
		dir := clone(t)
		gitIn(dir, "remote", "set-url", "origin", "file://"+filepath.Join(t.TempDir(), "gone"))
		out, errs, rc := check(dir)
		for _, want := range []string{"--since HEAD~2: cannot read " + filepath.Join(dir, "config", "application.yml") + " as HEAD~2 has it",
			"git cat-file", "promisor remote", "this is a partial clone"} {
			if !strings.Contains(errs, want) {
				t.Errorf("stderr lacks %q:\n%s", want, errs)
			}
		}
		if rc != 2 || strings.Contains(out, "[since-") {
			t.Errorf("exit %d, stdout %q; want 2 and no finding", rc, out)
		}
	})
	t.Run("remote hangs", func(t *testing.T) {
		if goruntime.GOOS == "windows" {
			t.Skip("the hanging remote helper is a shell script")
		}
		dir := clone(t)
		bin := t.TempDir()
		// The helper ignores SIGTERM and holds git's stderr: only
		// closing restls' end of the pipe ends the wait.
		writeTree(t, bin, map[string]string{"git-remote-hang": "#!/bin/sh\ntrap '' TERM\nexec sleep 60\n"})
		if err := os.Chmod(filepath.Join(bin, "git-remote-hang"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		gitIn(dir, "remote", "set-url", "origin", "hang::x")
		defer func(timeout, delay time.Duration) { gitTimeout, gitWaitDelay = timeout, delay }(gitTimeout, gitWaitDelay)
		// A bound of its own, short: the test waits it out, and it runs
		// alone (serial), so every second of it is the package's wall time.
		gitTimeout, gitWaitDelay = time.Second, 500*time.Millisecond
		type result struct {
			errs string
			rc   int
		}
		done := make(chan result, 1)
		start := time.Now()
		go func() {
			_, errs, rc := check(dir)
			done <- result{errs, rc}
		}()
		select {
		case r := <-done:
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %v, past the bound of 1 s and its grace", took)
			}
			if r.rc != 2 || !strings.Contains(r.errs, "git cat-file took longer than 1s and was stopped") || !strings.Contains(r.errs, "this is a partial clone") {
				t.Errorf("exit %d, stderr %q; want 2 and the bound named", r.rc, r.errs)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("restls check --since still waits 20 s after a 1 s git bound")
		}
	})
}
