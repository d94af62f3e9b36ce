package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/restls/restls/internal/goldentest"
)

// checkArgs check the tree of scripts with known problems: one per
// diagnostic kind, a syntax error, a non-ASCII line (columns count
// characters), task scripts, files .gitignore ignores (out/,
// *.generated.js) and one --exclude skips (vendor/).
var checkArgs = []string{"check", "--config-root", "testdata/check/config", "--exclude", "vendor/**", "testdata/check/repo"}

// TestCheckFormats: the tree gives the expected diagnostics in every
// format, through the real binary, and exits 1 for its errors.
func TestCheckFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		extra []string
	}{
		{"text", nil},
		{"json", []string{"--format", "json"}},
		{"sarif", []string{"--format", "sarif"}},
		// --kind-map makes tasks/handler.js a scriptTask: its call is clean.
		{"github", []string{"--format", "github", "--kind-map", "tasks/**=scriptTask"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, rc := runBinary(t, append(append([]string(nil), checkArgs...), tc.extra...)...)
			if rc != 1 || stderr != "" {
				t.Errorf("exit %d, stderr %q; want 1 and nothing", rc, stderr)
			}
			ext := map[string]string{"text": "txt", "github": "txt", "json": "json", "sarif": "sarif"}[tc.name]
			out := strings.ReplaceAll(stdout, `"version": "`+versionString()+`"`, `"version": "$VERSION"`)
			goldentest.Check(t, filepath.Join("testdata", "golden", "check", tc.name+"."+ext), out)
		})
	}
}

// TestCheckSARIFValidates validates the SARIF output against the SARIF
// 2.1.0 JSON schema (testdata/sarif/README.md says where it comes from).
func TestCheckSARIFValidates(t *testing.T) {
	t.Parallel()
	stdout, _, _ := runBinary(t, append(checkArgs, "--format", "sarif")...)
	schemaFile := filepath.Join("testdata", "sarif", "sarif-2.1.0-rtm.5.json")
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif.json", schema); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(stdout))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("the SARIF output does not validate: %v", err)
	}
	// The schema has teeth: a level SARIF does not define fails.
	bad, _ := jsonschema.UnmarshalJSON(strings.NewReader(strings.Replace(stdout, `"level": "error"`, `"level": "fatal"`, 1)))
	if sch.Validate(bad) == nil {
		t.Error("a result with level fatal validates; is the schema loaded?")
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID      string `json:"id"`
						HelpURI string `json:"helpUri"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("want one run: %v", err)
	}
	run := log.Runs[0]
	docs, err := os.ReadFile("../../docs/diagnostics.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range run.Tool.Driver.Rules {
		anchor := r.HelpURI[strings.LastIndex(r.HelpURI, "#")+1:]
		if anchor != r.ID || !strings.Contains(string(docs), `<a id="`+anchor+`"></a>`) {
			t.Errorf("rule %s: help URI %s has no anchor in docs/diagnostics.md", r.ID, r.HelpURI)
		}
	}
	for _, res := range run.Results {
		if rules := run.Tool.Driver.Rules; res.RuleIndex >= len(rules) || rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %s points at rule %d", res.RuleID, res.RuleIndex)
		}
	}
}

// TestCheckExitStatus: 0 clean, 1 with --strict on a warning, 2 for usage
// errors and unreadable input.
func TestCheckExitStatus(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, "nowhere.js"), filepath.Join(dir, "dangling.js")); err != nil {
		t.Fatal(err)
	}
	clean := "testdata/check/repo/scripts/clean.js"
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		// The configuration's one warning does not fail a plain run...
		{"clean", []string{"check", "--config-root", "testdata/check/config", clean}, 0},
		// ...but does with --strict.
		{"strict", []string{"check", "--strict", "--config-root", "testdata/check/config", clean}, 1},
		{"errors", checkArgs, 1},
		{"missing path", []string{"check", "--config-root", "testdata/check/config", "testdata/check/no-such-dir"}, 2},
		{"unreadable script", []string{"check", "--config-root", "testdata/check/config", dir}, 2},
		{"bad format", []string{"check", "--format", "xml", clean}, 2},
		{"bad kind map", []string{"check", "--kind-map", "tasks/**=task", clean}, 2},
		{"missing config root", []string{"check", "--config-root", "testdata/check/none", clean}, 2},
		{"missing config file", []string{"check", "--service-xml", "testdata/check/none.xml", clean}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, rc := runBinary(t, tc.args...)
			if rc != tc.want {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", rc, tc.want, stdout, stderr)
			}
			if tc.name == "unreadable script" && !strings.Contains(stdout, "[check-unreadable]") {
				t.Errorf("no check-unreadable finding:\n%s", stdout)
			}
		})
	}
}
