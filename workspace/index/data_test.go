package index

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/restls/restls/config"
)

func dataOptions(root string) Options {
	return Options{Root: root, MockSuffixes: []string{".mock.yaml", ".mock.json"}, TestSuffix: ".test.yaml"}
}

var dataFiles = map[string]string{
	"config/application.yml":                              "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com\n",
	"config/script-handler-config/script-handler-api.xml": "<scriptservice>\n  <api serviceId=\"tasky\" url=\"https://t.example.com\"/>\n</scriptservice>\n",
	"orders.js":           "api.rest.v1.get(\"crm\", {}, {});\n",
	"orders.mock.yaml":    "- serviceId: crm\n  body: {serviceId: crm}\n- serviceId: \"cr\\x6d\"\n",
	"task.js":             "// restls-kind: scriptTask\napi.rest.v1.get(\"tasky\", {}, {});\n",
	"task.mock.json":      "{\"fixtures\": [{\"serviceId\": \"tasky\"}, {\"serviceId\": \"crm\"}]}\n",
	"t/orders.test.yaml":  "script: ../orders.js\nfixtures: ../shared/crm.yaml\ncalls:\n  - serviceId: crm\ncases:\n  - name: a\n    fixtures: [{serviceId: 'crm'}]\n    calls: [{serviceId: tasky}]\n",
	"shared/crm.yaml":     "fixtures:\n  - serviceId: crm\n",
	"shared/other.yaml":   "- serviceId: crm\n",
	"t/nothing.test.yaml": ": not yaml [",
}

// TestDataOccurrences: the serviceIds of fixtures and test files are
// occurrences, in the scope of the scripts they are for; a fixture's body
// is not; a fixtures file no test names and no script has is not read.
func TestDataOccurrences(t *testing.T) {
	root := project(t, dataFiles)
	ix, err := New(dataOptions(root))
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	ix.SetConfig(config.Load(config.Sources{ConfigRoot: filepath.Join(root, "config")}))
	places := func(o Occurrences) []string {
		var out []string
		for _, r := range o.Data {
			pl := r.At()
			text, _ := os.ReadFile(r.File.Path)
			got := "?"
			if pl.Found {
				got = string(text[pl.Start:pl.End])
			}
			out = append(out, r.File.Rel+":"+got)
		}
		return out
	}
	crm := ix.Occurrences("crm", false, []config.Kind{config.ScriptService})
	want := []string{"orders.mock.yaml:crm", "orders.mock.yaml:?", "shared/crm.yaml:crm", "t/orders.test.yaml:crm", "t/orders.test.yaml:crm", "task.mock.json:crm"}
	if got := places(crm); !slices.Equal(got, want) {
		t.Errorf("crm in data files %q, want %q", got, want)
	}
	// tasky is scriptTask's: orders' test file expects a call of it, but
	// that test is of a scriptService script.
	tasky := ix.Occurrences("tasky", false, []config.Kind{config.ScriptTask})
	if got, want := places(tasky), []string{"task.mock.json:tasky"}; !slices.Equal(got, want) {
		t.Errorf("tasky in data files %q, want %q", got, want)
	}
	if _, err := ix.Rename("crm", "crm2", []config.Kind{config.ScriptService}); err == nil || !strings.Contains(err.Error(), "orders.mock.yaml:3") {
		t.Errorf("rename over an escaped id: %v, want a refusal naming orders.mock.yaml:3", err)
	}
	// The test file stops naming shared/crm.yaml: it is dropped.
	writeProject(t, root, "t/orders.test.yaml", "script: ../orders.js\n")
	ix.Update(filepath.Join(root, "t", "orders.test.yaml"))
	if got := places(ix.Occurrences("crm", false, config.Kinds)); slices.Contains(got, "shared/crm.yaml:crm") {
		t.Errorf("after the test file changed: %q still has shared/crm.yaml", got)
	}
}

func writeProject(t *testing.T, root, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// FuzzDataFile: any fixtures or test file is read without a panic, and
// every place found covers its serviceId exactly.
func FuzzDataFile(f *testing.F) {
	for _, text := range dataFiles {
		f.Add(text, true)
		f.Add(text, false)
	}
	f.Add("cases:\n"+strings.Repeat("  - calls: [{serviceId: \"x\\u0041\"}, {serviceId: 'y''z'}]\n", 2000), true)
	f.Add(strings.Repeat("[", 5000)+"{serviceId: a}"+strings.Repeat("]", 5000), false)
	f.Add("fixtures:\n"+strings.Repeat("  - serviceId: ä€😀\n    body: {serviceId: x}\n", 3000), false)
	f.Add("\ufeff- serviceId: crm\n- serviceId: |\n    crm\n- serviceId: &a crm\n- serviceId: *a\n", false)
	f.Fuzz(func(t *testing.T, text string, test bool) {
		df := parseData("/p/f.test.yaml", "f.test.yaml", test, []byte(text))
		for _, pl := range df.Places {
			if pl.Found && (pl.Start < 0 || pl.End > len(text) || text[pl.Start:pl.End] != pl.ServiceID) {
				t.Fatalf("place %+v does not cover its id in %q", pl, text)
			}
		}
	})
}
