package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/restls/restls/config"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/workspace"
)

// TestEditorTestsOutline: the language server's view of a test file is
// restls test's: the cases and their lines, an unknown key at its line
// and column with the nearest key, a script or fixtures file that does
// not exist at the line that names it.
func TestEditorTestsOutline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.js"), []byte("return 1;"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "t.test.yaml")
	for _, tc := range []struct {
		name, text string
		want       lsp.TestOutline
		msg        string
	}{
		{"cases", "script: s.js\ncases:\n  - name: a\n    result: 1\n  - name: b\n    result: 1\n",
			lsp.TestOutline{Cases: []lsp.TestCase{{Name: "a", Line: 3}, {Name: "b", Line: 5}}}, ""},
		{"one case", "script: s.js\nresult: 1\n", lsp.TestOutline{Cases: []lsp.TestCase{{Name: "t.test.yaml", Line: 1}}}, ""},
		{"unknown key", "script: s.js\ncases:\n  - name: a\n    resutl: 1\n",
			lsp.TestOutline{Problem: &lsp.TestProblem{Line: 4, Column: 5}}, `"resutl"`},
		{"no script", "script: gone.js\nresult: 1\n", lsp.TestOutline{Problem: &lsp.TestProblem{Line: 1}}, "cannot read the script"},
		{"no fixtures", "script: s.js\nfixtures: gone.mock.yaml\nresult: 1\n", lsp.TestOutline{Problem: &lsp.TestProblem{Line: 2}}, "fixtures: cannot read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := testOutline(path, []byte(tc.text))
			if got.Problem != nil {
				if !strings.Contains(got.Problem.Message, tc.msg) || tc.msg == "" {
					t.Errorf("message %q, want it to hold %q", got.Problem.Message, tc.msg)
				}
				got.Problem.Message = ""
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("outline (-want +got):\n%s", d)
			}
		})
	}
	got := testOutline(path, []byte("script: s.js\ncases:\n  - name: a\n    resutl: 1\n"))
	if !strings.Contains(got.Problem.Message, `did you mean "result"`) {
		t.Errorf("no nearest key: %q", got.Problem.Message)
	}
}

// TestEditorTestsRun: restls.runTests answers what restls test --json
// prints for the same file, and Update gives the text restls test
// --update writes, without writing it.
func TestEditorTestsRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "scripttest"))); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "failing.test.yaml")
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	snap := config.Load(config.Sources{ConfigRoot: "../../testdata/config"})
	tests := editorTests(10 * time.Second)
	got, err := tests.Run(context.Background(), lsp.TestRequest{Path: file, Snapshot: workspace.Snapshot{Config: snap}})
	if err != nil {
		t.Fatal(err)
	}
	stdout, _, _ := runBinary(t, testArgs("--json", file)...)
	if d := cmp.Diff(normalizeDurations(t, stdout), normalizeDurations(t, string(got))); d != "" {
		t.Errorf("runTests vs restls test --json (-cli +lsp):\n%s", d)
	}

	var rep struct {
		Tests []struct{ Name string } `json:"tests"`
	}
	if err := json.Unmarshal(got, &rep); err != nil || len(rep.Tests) < 2 {
		t.Fatalf("%v: %s", err, got)
	}
	name := rep.Tests[0].Name
	up, err := tests.Update(context.Background(), lsp.TestRequest{Path: file, Snapshot: workspace.Snapshot{Config: snap}, Case: name})
	if err != nil {
		t.Fatal(err)
	}
	if string(up.Before) != string(before) || string(up.After) == string(before) {
		t.Fatalf("update: before is the file: %v; after changed: %v", string(up.Before) == string(before), string(up.After) != string(before))
	}
	if now, _ := os.ReadFile(file); string(now) != string(before) {
		t.Error("Update wrote the file")
	}
	if _, _, rc := runBinary(t, testArgs("--update", "--run", "/"+regexpQuote(name)+"$", file)...); rc != 0 {
		t.Fatalf("restls test --update: exit %d", rc)
	}
	if now, _ := os.ReadFile(file); string(now) != string(up.After) {
		t.Errorf("Update gave\n%s\nrestls test --update wrote\n%s", up.After, now)
	}
	if _, err := tests.Run(context.Background(), lsp.TestRequest{Path: file, Snapshot: workspace.Snapshot{Config: snap}, Case: "no such case"}); err == nil || !strings.Contains(err.Error(), `no case named "no such case"`) {
		t.Errorf("unknown case: %v", err)
	}
}

// normalizeDurations decodes a report with its durations zeroed.
func normalizeDurations(t *testing.T, s string) any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	var zero func(any)
	zero = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "durationMs" || k == "ms" || k == "timing" {
					x[k] = 0
				} else {
					zero(e)
				}
			}
		case []any:
			for _, e := range x {
				zero(e)
			}
		}
	}
	zero(v)
	return v
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TestEditorTestsCoverage: restls.runTests with coverage answers what
// restls test --coverage --json reports for the file (the Testing view's
// coverage): the script by its absolute path, its lines and the call
// site's outcomes; without it the report has none.
func TestEditorTestsCoverage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "coverage"))); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "orders.test.yaml")
	snap := config.Load(config.Sources{ConfigRoot: "../../testdata/config"})
	tests := editorTests(10 * time.Second)
	raw, err := tests.Run(context.Background(), lsp.TestRequest{Path: file, Snapshot: workspace.Snapshot{Config: snap}, Coverage: true})
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Coverage *struct {
			Scripts []struct {
				Script string `json:"script"`
				Lines  struct{ Hit, Found int }
				Calls  []struct {
					Line     int
					Outcomes []struct{ Outcome string }
				} `json:"callSites"`
			} `json:"scripts"`
		} `json:"coverage"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Coverage == nil || len(rep.Coverage.Scripts) != 1 {
		t.Fatalf("no coverage of one script in %s", raw)
	}
	s := rep.Coverage.Scripts[0]
	if s.Script != filepath.Join(dir, "orders.js") || s.Lines.Hit != 10 || s.Lines.Found != 12 || len(s.Calls) != 2 || len(s.Calls[0].Outcomes) != 3 {
		t.Errorf("coverage %+v", s)
	}
	raw, err = tests.Run(context.Background(), lsp.TestRequest{Path: file, Snapshot: workspace.Snapshot{Config: snap}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `"coverage"`) {
		t.Errorf("coverage without asking: %s", raw)
	}
}
