package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDesignerCoverageIsRestlsTests is the differential test of the
// designer's Run tests (issue 35): for each script of a project, the
// lines and branch arms POST /v1/test answers (restls serve --http
// --allow-run, run from the project's directory as a user starts it) are
// those `restls test --coverage` writes to lcov.info for the same cases.
// Two scripts: one whose three cases cover most of it, one whose single
// case leaves more uncovered, both test files beside their script and
// one in another directory.
func TestDesignerCoverageIsRestlsTests(t *testing.T) {
	t.Parallel()
	proj := t.TempDir()
	cfg, err := filepath.Abs("../../testdata/config")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("testdata/coverage/orders.js")
	if err != nil {
		t.Fatal(err)
	}
	tests, err := os.ReadFile("testdata/coverage/orders.test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// one.js's only case: found.
	one := strings.Replace(string(tests), "script: orders.js", "script: ../scripts/one.js", 1)
	one = one[:strings.Index(one, "  - name: missing")]
	files := map[string]string{
		".git/HEAD":                    "ref: refs/heads/main\n",
		"scripts/orders.js":            string(script),
		"scripts/orders.test.yaml":     string(tests),
		"scripts/one.js":               string(script),
		"tests/one.test.yaml":          one,
		"restls.yaml":                  "configRoot: " + cfg + "\n",
		"scripts/unrelated.test.yaml":  "script: unrelated.js\nresult: 1\n",
		"scripts/unrelated.js":         "return 1;\n",
		"tests/elsewhere/x.test.yaml":  "script: ../../scripts/unrelated.js\nresult: 1\n",
		"tests/elsewhere/readme.yaml":  "not a test file\n",
		"scripts/sub/orders.test.yaml": "script: orders.js\nresult: 1\n", // a script of the same name elsewhere
	}
	for name, text := range files {
		p := filepath.Join(proj, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	covDir := t.TempDir()
	cli := restlsCommand(t, "test", "--coverage", "--coverage-dir", covDir, "scripts/orders.test.yaml", "tests/one.test.yaml")
	cli.Dir = proj
	if out, err := cli.CombinedOutput(); err != nil {
		t.Fatalf("restls test --coverage: %v\n%s", err, out)
	}
	lcov, err := os.ReadFile(filepath.Join(covDir, "lcov.info"))
	if err != nil {
		t.Fatal(err)
	}
	want := lcovRecords(string(lcov))
	if len(want) != 2 {
		t.Fatalf("lcov.info has %d records, want 2:\n%s", len(want), lcov)
	}

	cmd := restlsCommand(t, "serve", "--http", "127.0.0.1:0", "--allow-run")
	cmd.Dir = proj
	p := startHTTPCmd(t, cmd)
	for _, name := range []string{"scripts/orders.js", "scripts/one.js"} {
		body, _ := json.Marshal(map[string]string{"script": name, "text": string(script)})
		res, err := http.Post(p.base+"/v1/test?access_token="+p.key, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Files    []string
			Failed   int
			Coverage struct {
				Script   string
				LineHits []struct{ Line, Hits int }
				// BranchHits in the order LCOV numbers blocks.
				BranchHits []struct {
					Line  int
					Taken []int
				}
			}
		}
		err = json.NewDecoder(res.Body).Decode(&got)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("POST /v1/test %s: %d %v", name, res.StatusCode, err)
		}
		if len(got.Files) != 1 || got.Failed != 0 || got.Coverage.Script != name {
			t.Errorf("%s: files %q, %d failed, coverage of %q", name, got.Files, got.Failed, got.Coverage.Script)
		}
		var lines []string
		for _, l := range got.Coverage.LineHits {
			lines = append(lines, fmt.Sprintf("DA:%d,%d", l.Line, l.Hits))
		}
		for block, b := range got.Coverage.BranchHits {
			for arm, n := range b.Taken {
				lines = append(lines, fmt.Sprintf("BRDA:%d,%d,%d,%d", b.Line, block, arm, n))
			}
		}
		slices.Sort(lines)
		if w := want[name]; !slices.Equal(lines, w) {
			t.Errorf("%s: the designer's coverage\n%s\nis not restls test --coverage's\n%s", name, strings.Join(lines, "\n"), strings.Join(w, "\n"))
		}
	}
}

// lcovRecords are each script's DA and BRDA lines of an LCOV file,
// sorted, by the script's SF path.
func lcovRecords(lcov string) map[string][]string {
	out := map[string][]string{}
	var sf string
	for _, line := range strings.Split(lcov, "\n") {
		switch {
		case strings.HasPrefix(line, "SF:"):
			sf = strings.TrimPrefix(line, "SF:")
		case strings.HasPrefix(line, "DA:"), strings.HasPrefix(line, "BRDA:"):
			// "-" is a branch never reached: 0 taken, as the JSON says it.
			out[sf] = append(out[sf], strings.Replace(line, ",-", ",0", 1))
		case line == "end_of_record":
			slices.Sort(out[sf])
		}
	}
	return out
}
