package main

import (
	"encoding/json"
	"path"
	"path/filepath"
	"slices"
	"testing"

	"github.com/restls/restls/internal/walktest"
)

// TestCheckAndTestSkipRule: through the binary, restls check and restls
// test leave out the scripts and test files under a hidden directory
// (not only .git) and node_modules below the PATH, as the project index
// does (input.SkipDir); a hidden directory named as the PATH is walked.
func TestCheckAndTestSkipRule(t *testing.T) {
	t.Parallel()
	st := walktest.SkipRule(t, "a.js", "api.rest.v1.get(\"nope\", {}, {});\n")
	tests := map[string]string{}
	for _, f := range append(slices.Clone(st.Kept), st.Skipped...) {
		tests[path.Join(path.Dir(f), "a.test.yaml")] = "script: a.js\nresult: 1\n"
	}
	walktest.Write(t, st.Root, tests)
	config, err := filepath.Abs("../../testdata/config")
	if err != nil {
		t.Fatal(err)
	}
	checked := func(dir string) []string {
		t.Helper()
		out, errs, rc := runBinary(t, "check", "--format", "json", "--config-root", config, dir)
		var got struct {
			Diagnostics []struct{ File, Code string }
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || rc != 1 {
			t.Fatalf("restls check %s: exit %d, %v\n%s%s", dir, rc, err, out, errs)
		}
		var files []string
		for _, d := range got.Diagnostics {
			if d.Code == "unknown-service" {
				files = append(files, d.File)
			}
		}
		return walktest.Rel(t, st.Root, files)
	}
	tested := func(dir string) []string {
		t.Helper()
		out, errs, rc := runBinary(t, "test", "--json", "--config-root", config, dir)
		var got struct {
			Tests []struct{ File string }
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || rc != 1 {
			t.Fatalf("restls test %s: exit %d, %v\n%s%s", dir, rc, err, out, errs)
		}
		var files []string
		for _, c := range got.Tests {
			files = append(files, path.Join(path.Dir(filepath.ToSlash(c.File)), "a.js")) // the test file's script
		}
		return walktest.Rel(t, st.Root, files)
	}
	hidden := filepath.Join(st.Root, filepath.FromSlash(st.HiddenRoot))
	for _, tc := range []struct {
		what string
		got  []string
		want []string
	}{
		{"restls check ROOT", checked(st.Root), st.Kept},
		{"restls check " + st.HiddenRoot, checked(hidden), st.HiddenKept},
		{"restls test ROOT", tested(st.Root), st.Kept},
		{"restls test " + st.HiddenRoot, tested(hidden), st.HiddenKept},
	} {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.what, tc.got, tc.want)
		}
	}
}
