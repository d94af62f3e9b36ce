// Package openapitest fetches real public OpenAPI descriptions for tests
// and benchmarks, each from the npm package its authors publish it in,
// packed with npm into the user's cache directory once, never committed:
//
//   - GitHub's: @octokit/openapi, generated/api.github.com.json (13 MB,
//     1,223 operations; MIT);
//   - Blockfrost's (a Cardano blockchain API): @blockfrost/openapi 0.1.93,
//     openapi.yaml (OpenAPI 3.0.3, 0.5 MB; MIT);
//   - Okta's management API: @okta/openapi 2.15.0, dist/spec.yaml
//     (Swagger 2.0, 0.4 MB, 634 operations; Apache-2.0).
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

// A Package is a description published in an npm package.
type Package struct {
	// Name names it in messages and the cache; Spec is the package with
	// its version, File the description's path in it.
	Name, Spec, File string
}

// The descriptions besides GitHub's, at the versions the tests were
// written against.
var (
	Blockfrost = Package{Name: "blockfrost", Spec: "@blockfrost/openapi@0.1.93", File: "openapi.yaml"}
	Okta       = Package{Name: "okta", Spec: "@okta/openapi@2.15.0", File: "dist/spec.yaml"}
)

var fetched sync.Map // Package -> *fetchOnce

type fetchOnce struct {
	once      sync.Once
	path, err string
}

// Fetch returns the path of p's description, skipping tb with the reason
// when it cannot be had (no npm, no network).
func Fetch(tb testing.TB, p Package) string {
	tb.Helper()
	v, _ := fetched.LoadOrStore(p, &fetchOnce{})
	f := v.(*fetchOnce)
	f.once.Do(func() { f.path, f.err = fetchPackage(p) })
	if f.path == "" {
		tb.Skip(f.err)
	}
	return f.path
}

func fetchPackage(p Package) (path, why string) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dest := filepath.Join(cache, "restls", "openapi-"+p.Name, filepath.Base(p.File))
	if fi, err := os.Stat(dest); err == nil && fi.Size() > 0 {
		return dest, ""
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", "npm is not installed: cannot fetch " + p.Spec
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", err.Error()
	}
	dir, err := os.MkdirTemp(filepath.Dir(dest), "fetch")
	if err != nil {
		return "", err.Error()
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(npm, "pack", "--silent", p.Spec)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", "npm pack " + p.Spec + " failed: " + err.Error()
	}
	tgz := filepath.Join(dir, strings.TrimSpace(string(out)))
	if err := exec.Command("tar", "-xzf", tgz, "-C", dir, "package/"+p.File).Run(); err != nil {
		return "", "unpacking " + tgz + ": " + err.Error()
	}
	// Rename is atomic: test binaries running at once see the whole file
	// or none.
	if err := os.Rename(filepath.Join(dir, "package", filepath.FromSlash(p.File)), dest); err != nil {
		return "", err.Error()
	}
	return dest, ""
}
