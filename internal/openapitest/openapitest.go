// Package openapitest fetches GitHub's own OpenAPI description for tests
// and benchmarks: npm package @octokit/openapi, file
// generated/api.github.com.json (13 MB, 1,223 operations), packed with npm
// into a temporary directory once per test binary, never committed.
//
// It is a test helper: only _test.go files import it. It imports nothing
// of restls.
package openapitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Env names an already fetched copy of api.github.com.json, used instead
// of npm.
const Env = "RESTLS_GITHUB_OPENAPI"

var github struct {
	once sync.Once
	path string
	err  string
}

// GitHub returns the path of GitHub's description, skipping tb with the
// reason when it cannot be had (no npm, no network).
func GitHub(tb testing.TB) string {
	tb.Helper()
	p, err := GitHubPath()
	if p == "" {
		tb.Skip(err + " (set " + Env + " to a copy of api.github.com.json to run it)")
	}
	return p
}

// GitHubPath is GitHub's path as GitHub returns it, or "" and why not,
// for a test that goes on without it.
func GitHubPath() (path, why string) {
	if p := os.Getenv(Env); p != "" {
		return p, ""
	}
	github.once.Do(fetch)
	return github.path, github.err
}

func fetch() {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dest := filepath.Join(cache, "restls", "octokit-openapi", "api.github.com.json")
	if fi, err := os.Stat(dest); err == nil && fi.Size() > 0 {
		github.path = dest
		return
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		github.err = "npm is not installed: cannot fetch GitHub's description (@octokit/openapi)"
		return
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		github.err = err.Error()
		return
	}
	dir, err := os.MkdirTemp(filepath.Dir(dest), "fetch")
	if err != nil {
		github.err = err.Error()
		return
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(npm, "pack", "--silent", "@octokit/openapi")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		github.err = "npm pack @octokit/openapi failed: " + err.Error()
		return
	}
	tgz := filepath.Join(dir, strings.TrimSpace(string(out)))
	if err := exec.Command("tar", "-xzf", tgz, "-C", dir, "package/generated/api.github.com.json").Run(); err != nil {
		github.err = "unpacking " + tgz + ": " + err.Error()
		return
	}
	// Rename is atomic: test binaries running at once see the whole file
	// or none.
	if err := os.Rename(filepath.Join(dir, "package", "generated", "api.github.com.json"), dest); err != nil {
		github.err = err.Error()
		return
	}
	github.path = dest
}
