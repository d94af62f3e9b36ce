package hygiene_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v4"

	"github.com/restls/restls/internal/restlstest"
)

// The pages a newcomer follows to install restls; their release file names
// must be the ones make dist makes.
var installDocs = []string{"README.md", "docs/ci.md", "docs/vscode.md", "docs/lsp.md", "docs/deploy.md", "vscode-extension/README.md"}

// releaseName is a release file or the binary's path in an unpacked
// archive as the docs write it, placeholders included.
var releaseName = regexp.MustCompile(`restls-[A-Za-z0-9.<>${}_-]*?(?:\.vsix|\.tar\.gz|\.zip|-(?:linux|darwin|win32)-(?:x64|arm64)/restls(?:\.exe)?\b|<target>/restls|<platform>/restls)`)

// releaseVersion is the release the docs name: v and the extension's
// version (make dist stamps it on a commit tagged so, or with VERSION=).
func releaseVersion(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(restlstest.Root(t), "vscode-extension", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(b, &pkg); err != nil || pkg.Version == "" {
		t.Fatalf("vscode-extension/package.json version: %v", err)
	}
	return "v" + pkg.Version
}

// distNames are the names of scripts/dist.sh for version: files in dist/
// and the binary's path in each archive.
func distNames(version string) map[string]bool {
	names := map[string]bool{"restls-" + version + ".vsix": true}
	for _, d := range distTargets {
		base := "restls-" + version + "-" + d.target
		if d.goos == "windows" {
			names[base+".zip"], names[base+"/restls.exe"] = true, true
		} else {
			names[base+".tar.gz"], names[base+"/restls"] = true, true
		}
		names[base+".vsix"] = true
	}
	return names
}

// TestDocsReleaseFileNames: every release file name the install pages use
// (README, docs/ci.md, the extension's README, ...) is one make dist
// makes, with <version> or $RESTLS_VERSION standing for the release tag
// and <target> or <platform> for a target. It caught
// restls-0.1.0-linux-x64.vsix (make dist writes restls-v0.1.0-...) and
// "unpack bin/restls" (the archive holds restls-v0.1.0-linux-x64/restls).
func TestDocsReleaseFileNames(t *testing.T) {
	t.Parallel()
	version := releaseVersion(t)
	names := distNames(version)
	found := 0
	for _, doc := range installDocs {
		data, err := os.ReadFile(filepath.Join(restlstest.Root(t), doc))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range releaseName.FindAllString(line, -1) {
				found++
				name := strings.NewReplacer("<version>", version, "${RESTLS_VERSION}", version, "$RESTLS_VERSION", version).Replace(m)
				if strings.Contains(name, "<target>") || strings.Contains(name, "<platform>") {
					name = strings.NewReplacer("<target>", "linux-x64", "<platform>", "linux-x64").Replace(name)
				}
				if !names[name] {
					t.Errorf("%s:%d: %s is not a name make dist makes (%s is; <version> is the tag, %s)", doc, i+1, m, "restls-"+version+"-linux-x64.tar.gz", version)
				}
			}
		}
	}
	if found < 10 {
		t.Errorf("found %d release file names in %v: the pattern no longer matches the docs", found, installDocs)
	}
	// No code block installs with go install: the module is not published.
	for _, doc := range installDocs {
		for _, block := range codeBlocks(t, doc) {
			if strings.Contains(block, "go install github.com/restls/restls") {
				t.Errorf("%s: a code block installs restls with go install, which does not work (the module is not published):\n%s", doc, block)
			}
		}
	}
}

// codeBlocks returns the fenced code blocks of a page of the repository.
func codeBlocks(t *testing.T, doc string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(restlstest.Root(t), doc))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	rest := string(data)
	for {
		_, after, ok := strings.Cut(rest, "\n```")
		if !ok {
			return blocks
		}
		_, after, _ = strings.Cut(after, "\n") // the info string
		block, next, ok := strings.Cut(after, "\n```")
		if !ok {
			t.Fatalf("%s: a code block does not end", doc)
		}
		blocks = append(blocks, block)
		rest = next[strings.IndexByte(next+"\n", '\n'):]
	}
}

// ciBlock returns the YAML block of docs/ci.md that starts with the
// comment line first.
func ciBlock(t *testing.T, first string) string {
	t.Helper()
	for _, b := range codeBlocks(t, "docs/ci.md") {
		if strings.HasPrefix(b, first+"\n") {
			return b
		}
	}
	t.Fatalf("docs/ci.md has no block starting with %q", first)
	return ""
}

// download turns the docs' `curl -fsSLO "$base/FILE"` into a copy from
// dist/ (no network in tests; the name is the one the docs download).
var download = regexp.MustCompile(`curl -fsSLO "\$base/([^"]+)"`)

// runInstall runs an install script of docs/ci.md in an empty directory
// with the downloads taken from dist, and returns the directory.
func runInstall(t *testing.T, dist, script string, env ...string) (string, string) {
	t.Helper()
	if n := len(download.FindAllString(script, -1)); n != 2 {
		t.Fatalf("want two downloads (the archive and SHA256SUMS) in:\n%s", script)
	}
	script = download.ReplaceAllString(script, `cp "$$RESTLS_DIST/$1" .`)
	dir := t.TempDir()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append(env, "RESTLS_DIST="+dist)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s\n%v\n%s", script, err, out)
	}
	return dir, string(out)
}

// TestDistDocsCIInstall runs the install steps of docs/ci.md's GitHub
// Actions and GitLab CI examples against what make dist built: the
// archive they name exists, passes SHA256SUMS, and unpacks a restls that
// runs from the PATH they set.
func TestDistDocsCIInstall(t *testing.T) {
	t.Parallel()
	dist := distDir(t)
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the examples install the linux-x64 archive")
	}
	// The docs name the release; make dist may have built a development
	// version (an untagged commit), which the downloads then carry.
	version, built := releaseVersion(t), builtVersion(t, dist)

	t.Run("GitHub Actions", func(t *testing.T) {
		var wf struct {
			Jobs map[string]struct {
				Steps []struct {
					Name string            `yaml:"name"`
					Env  map[string]string `yaml:"env"`
					Run  string            `yaml:"run"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal([]byte(ciBlock(t, "# .github/workflows/scripts.yml")), &wf); err != nil {
			t.Fatal(err)
		}
		for _, step := range wf.Jobs["restls"].Steps {
			if step.Name != "install restls" {
				continue
			}
			if step.Env["RESTLS_VERSION"] != version {
				t.Errorf("the example installs %s; the release is %s", step.Env["RESTLS_VERSION"], version)
			}
			ghPath := filepath.Join(t.TempDir(), "GITHUB_PATH")
			dir, out := runInstall(t, dist, step.Run, "RESTLS_VERSION="+built, "GITHUB_PATH="+ghPath)
			added, err := os.ReadFile(ghPath)
			if err != nil {
				t.Fatalf("the step added nothing to GITHUB_PATH: %v\n%s", err, out)
			}
			checkInstalled(t, strings.TrimSpace(string(added)), dir, built)
			return
		}
		t.Fatal(`docs/ci.md's workflow has no step named "install restls"`)
	})

	t.Run("GitLab CI", func(t *testing.T) {
		var ci map[string]struct {
			Variables map[string]string `yaml:"variables"`
			Script    []string          `yaml:"script"`
		}
		if err := yaml.Unmarshal([]byte(ciBlock(t, "# .gitlab-ci.yml")), &ci); err != nil {
			t.Fatal(err)
		}
		job := ci["restls"]
		if job.Variables["RESTLS_VERSION"] != version {
			t.Errorf("the example installs %s; the release is %s", job.Variables["RESTLS_VERSION"], version)
		}
		var install []string
		for _, line := range job.Script {
			if strings.HasPrefix(line, "restls ") {
				break
			}
			install = append(install, line)
		}
		// The job's lines run in one shell: the PATH it sets is the one
		// the restls lines after it use.
		script := strings.Join(append(install, `command -v restls`), "\n")
		dir, out := runInstall(t, dist, script, "RESTLS_VERSION="+built)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		checkInstalled(t, filepath.Dir(lines[len(lines)-1]), dir, built)
	})
}

// checkInstalled: binDir (the PATH entry an example set) is inside the
// directory it ran in and holds a restls of version, with docs/ beside it.
func checkInstalled(t *testing.T, binDir, ranIn, version string) {
	t.Helper()
	if !strings.HasPrefix(binDir, ranIn) {
		t.Fatalf("the example put %q on PATH, not the archive it unpacked in %s", binDir, ranIn)
	}
	out, err := exec.Command(filepath.Join(binDir, "restls"), "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "restls "+version+" ") {
		t.Errorf("%s/restls version: %v %q", binDir, err, out)
	}
	if _, err := os.Stat(filepath.Join(binDir, "docs", "api.md")); err != nil {
		t.Errorf("no docs/ beside the installed restls: %v", err)
	}
}

// TestDocsHTTPFirstExampleDryRuns starts the first `serve --http`
// command of docs/http.md as written (on a free port) and does what the
// page does: it asks /v1/status whether this page may dry run, then runs
// the example script with the example fixtures pasted as mocks. The
// example once lacked --allow-run, so its page could never dry-run.
func TestDocsHTTPFirstExampleDryRuns(t *testing.T) {
	t.Parallel()
	var args []string
	for _, block := range codeBlocks(t, "docs/http.md") {
		for _, line := range strings.Split(block, "\n") {
			if rest, ok := strings.CutPrefix(line, "bin/restls serve --http "); ok && !strings.HasSuffix(rest, `\`) {
				args = strings.Fields(rest)
				break
			}
		}
		if args != nil {
			break
		}
	}
	if len(args) < 1 {
		t.Fatal("docs/http.md has no one-line bin/restls serve --http command")
	}
	// startHTTP listens on 127.0.0.1:0; the rest is the example's, run
	// from the repository root as the docs are.
	cmd := restlstest.Command(t, append([]string{"serve", "--http", "127.0.0.1:0"}, args[1:]...)...)
	cmd.Dir = restlstest.Root(t)
	p := restlstest.StartHTTP(t, cmd)
	if p.Key == "" {
		t.Fatalf("no access key in the page address:\n%s", p.Stderr.String())
	}
	code, body := restlstest.HTTPGet(t, p.Base+"/v1/status?access_token="+p.Key)
	var status struct {
		Run struct {
			Allowed bool   `json:"allowed"`
			Reason  string `json:"reason"`
		} `json:"run"`
	}
	if err := json.Unmarshal([]byte(body), &status); code != 200 || err != nil {
		t.Fatalf("GET /v1/status = %d %v %.300s", code, err, body)
	}
	if !status.Run.Allowed {
		t.Fatalf("the page of docs/http.md's first example cannot dry-run: %s", status.Run.Reason)
	}
	script, err := os.ReadFile(filepath.Join(restlstest.Root(t), "testdata/scripts/customer-summary.js"))
	if err != nil {
		t.Fatal(err)
	}
	mock, err := os.ReadFile(filepath.Join(restlstest.Root(t), "testdata/mocks/customer-summary.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := json.Marshal(map[string]any{"text": string(script), "mock": string(mock)})
	res, err := http.Post(p.Base+"/v1/run?access_token="+p.Key, "application/json", bytes.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		Result json.RawMessage   `json:"result"`
		Error  json.RawMessage   `json:"error"`
		Calls  []json.RawMessage `json:"calls"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || len(out.Error) > 0 && string(out.Error) != "null" || len(out.Calls) == 0 {
		t.Fatalf("POST /v1/run of the example script with its mocks = %d, error %s, %d calls", res.StatusCode, out.Error, len(out.Calls))
	}
}
