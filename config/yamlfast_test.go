package config

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v4"
)

// libraryYAML parses data with the YAML library alone.
func libraryYAML(data []byte) (docs []*yaml.Node, err error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return docs, err
		}
		docs = append(docs, &doc)
	}
}

// sameTree reports where two trees differ in what the loader reads, or "".
func sameTree(fast, lib *yaml.Node, path string) string {
	switch {
	case fast.Kind != lib.Kind:
		return path + ": kind"
	case fast.Kind != yaml.DocumentNode && (fast.Line != lib.Line || fast.Column != lib.Column):
		return path + ": position"
	case fast.Value != lib.Value:
		return path + ": value"
	case (fast.Tag == "!!null") != (lib.Tag == "!!null"):
		return path + ": null"
	case len(fast.Content) != len(lib.Content):
		return path + ": children"
	}
	for i := range fast.Content {
		if d := sameTree(fast.Content[i], lib.Content[i], path+"/"+lib.Content[i].Value); d != "" {
			return d
		}
	}
	return ""
}

func dumpTree(n *yaml.Node, depth int, b *strings.Builder) {
	b.WriteString(strings.Repeat("  ", depth))
	b.WriteString(n.Tag + " " + n.Value + " @" + Position{Line: n.Line, RuneCol: n.Column}.String() + "\n")
	for _, c := range n.Content {
		dumpTree(c, depth+1, b)
	}
}

func checkFastYAML(t *testing.T, data []byte) (accepted bool) {
	t.Helper()
	fast, ok := fastYAML(data)
	if !ok {
		return false
	}
	lib, err := libraryYAML(data)
	if err != nil || len(lib) != 1 {
		t.Fatalf("fast path accepted what the library parses as %d documents, error %v:\n%q", len(lib), err, data)
	}
	if d := sameTree(fast, lib[0], ""); d != "" {
		var f, l strings.Builder
		dumpTree(fast, 0, &f)
		dumpTree(lib[0], 0, &l)
		t.Fatalf("trees differ at %s for\n%q\nfast:\n%slibrary:\n%s", d, data, f.String(), l.String())
	}
	// Reading the lists' items as they are parsed gives what reading the
	// library's whole tree gives.
	want := &parsed{file: "f.yml"}
	yamlDoc(want, lib[0])
	got := parseYAML("f.yml", data)
	got.apis = append([]rawAPI(nil), got.apis...) // capacity is a hint
	want.apis = append([]rawAPI(nil), want.apis...)
	sortByReadingOrder(got.diags, nil)
	sortByReadingOrder(want.diags, nil)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("items read while parsing differ from the library's tree for\n%q\ngot:\n%+v\nwant:\n%+v", data, got, want)
	}
	return true
}

// FuzzFastYAML is the differential test of the fast path: whatever it
// accepts, the library must parse to the same tree.
func FuzzFastYAML(f *testing.F) {
	for _, s := range fastYAMLCases {
		f.Add(s.in)
	}
	f.Fuzz(func(t *testing.T, data string) {
		checkFastYAML(t, []byte(data))
	})
}

// fastYAMLCases are inputs with whether the fast path takes them.
var fastYAMLCases = []struct {
	in   string
	fast bool
}{
	{"a:\nb: 1\n", true},
	{"a:\n  - x\n  -\n  - y: \n", true},
	{"\n\n# c\na: 'it''s'\nb: \"q\" # c\nc: ~\nd: null\n", true},
	{"a:\n- 1\n- 2\nb: x\n", true},
	{"a: é b # ü\nb: c\n", true},
	{"scriptservice:\n  api:\n    - serviceId: a\n      url: https://a.example.com/x#frag\n      authorization:\n        type: basic\n    -   serviceId: b\n        url: a/b\n", true},
	{"- a:\n  - x\n  b: 1\n- c\n-\n  d: 2\n", true},
	{"  a: 1\n  b:\n    c: 2\n", true},
	{"a: 1 # c\n# only\n\nb: # c\n  c: 'x' # c\n", true},
	{"null: 1\nNULL: ~\n", true},
	// Left to the library.
	{"a: [1, 2]\n", false},
	{"a: {b: c}\n", false},
	{"a: &x 1\nb: *x\n", false},
	{"a: !!str 1\n", false},
	{"a: |\n  text\n", false},
	{"a: plain\n  continued\n", false},
	{"a:\n  plain on its own line\n", false},
	{"a: \"esc\\n\"\n", false},
	{"a: 1\n---\nb: 2\n", false},
	{"a:\t1\n", false},
	{"a: 1\r\n", false},
	{"a: 1\na: 2\n", false},
	{"a: b: c\n", false},
	{"- - x\n", false},
	{"\ufeffa: 1\n", false},
	{"a: 1\n b: 2\n", false},
	{"'q': 1\n", false},
	{"a: \"open\n", false},
	{"a: 'x'y\n", false},
	{"", false},
	{"# only a comment\n", false},
	{"just a scalar\n", false},
}

func TestFastYAMLCases(t *testing.T) {
	for _, c := range fastYAMLCases {
		if got := checkFastYAML(t, []byte(c.in)); got != c.fast {
			t.Errorf("fast path took %q: %v, want %v", c.in, got, c.fast)
		}
	}
}

// TestFastYAMLTakesRealConfigs keeps the fast path on the files it exists
// for: if it stopped accepting them, loading would silently slow down.
func TestFastYAMLTakesRealConfigs(t *testing.T) {
	dir := t.TempDir()
	writeLargeConfig(t, dir, 200)
	files, _ := filepath.Glob("../testdata/*/*.yml")
	files = append(files, filepath.Join(dir, "application.yml"))
	if len(files) < 2 {
		t.Fatalf("found only %v", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(f, "broken") {
			checkFastYAML(t, data)
			continue
		}
		if !checkFastYAML(t, data) {
			t.Errorf("%s: the fast path left it to the library", f)
		}
	}
}

// fastYAML is the fast path keeping every node, as the fuzz target
// compares it with the library's whole tree.
func fastYAML(data []byte) (*yaml.Node, bool) { return fastYAMLItems(data, nil) }
