package main

import (
	"encoding/json"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/restls/restls/internal/goldentest"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/workspace"
)

func TestVersionText(t *testing.T) {
	t.Parallel()
	b := buildInfo{Version: "v0.1.0", Commit: "0123456789abcdef0123456789abcdef01234567", GoVersion: "go1.26.8", OS: "windows", Arch: "amd64"}
	goldentest.Check(t, "testdata/golden/version/text.golden", b.text())
}

// TestVersionStamped checks what `make dist` stamps reaches both outputs,
// and that --json is exactly the documented object.
func TestVersionStamped(t *testing.T) {
	// Not in parallel: it sets the package's version and commit.
	oldV, oldC := version, commit
	version, commit = "v9.8.7", "feedface"
	t.Cleanup(func() { version, commit = oldV, oldC })

	out, errs, rc := run(t, nil, "version")
	if rc != 0 || errs != "" {
		t.Fatalf("rc %d, stderr %q", rc, errs)
	}
	if want := "restls v9.8.7 (commit feedface, " + runtime.Version(); !strings.HasPrefix(out, want) {
		t.Errorf("version = %q, want it to start with %q", out, want)
	}

	out, errs, rc = run(t, nil, "version", "--json")
	if rc != 0 || errs != "" {
		t.Fatalf("rc %d, stderr %q", rc, errs)
	}
	var got buildInfo
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("not the documented JSON object: %v\n%s", err, out)
	}
	want := buildInfo{Version: "v9.8.7", Commit: "feedface", GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH,
		Files: lsp.Files{Scripts: workspace.DefaultScriptGlobs, TestFiles: "**/*.test.yaml", Skip: "**/{.*,node_modules}/**"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("version --json = %+v, want %+v", got, want)
	}
}

// TestVersionUnstamped: a plain `go build` still names a commit, or says
// it does not know one; it never prints an empty field.
func TestVersionUnstamped(t *testing.T) {
	t.Parallel()
	b := currentBuild()
	if b.Commit == "" || b.Version == "" || b.GoVersion == "" {
		t.Errorf("empty field in %+v", b)
	}
}
