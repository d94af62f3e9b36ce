package scripttest

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v4"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	"github.com/restls/restls/internal/goldentest"
	"github.com/restls/restls/workspace"
)

// TestUpdateKeepsLayout: --update rewrites only the entries it changes;
// comments, blank lines and flow mappings elsewhere stay byte for byte,
// and the file decodes as the full rewrite would.
func TestUpdateKeepsLayout(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"before.test.yaml", "lookup.js"} {
		data, err := os.ReadFile(filepath.Join("testdata", "update", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, strings.Replace(name, "before.", "", 1)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "test.yaml")
	before, _ := os.ReadFile(file)
	snap := config.Load(config.Sources{ConfigRoot: "../testdata/config"})
	rep, err := Run(context.Background(), Options{Paths: []string{file}, Snapshot: workspace.Snapshot{Config: snap}, Update: true, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	updated := 0
	for _, o := range rep.Outcomes {
		if o.Updated {
			updated++
		}
	}
	if updated != 4 {
		t.Errorf("%d cases updated, want 4 (all but passes)", updated)
	}
	after, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "update", "after.test.yaml"), string(after))

	// The lines before the first case are untouched.
	head := string(before[:strings.Index(string(before), "  - name: wrong result")])
	if !strings.HasPrefix(string(after), head) {
		t.Errorf("the head of the file changed")
	}
	rep2, err := Run(context.Background(), Options{Paths: []string{file}, Snapshot: workspace.Snapshot{Config: snap}, Workers: 1})
	if err != nil || rep2.Failed != 0 {
		t.Fatalf("a plain run after --update: %v, %d failed", err, rep2.Failed)
	}
}

// TestEditInPlaceDeclines: what cannot be edited by lines is left to
// the full rewrite.
func TestEditInPlaceDeclines(t *testing.T) {
	result := &yaml.Node{Kind: yaml.ScalarNode, Value: "1"}
	for _, tc := range []struct{ name, text string }{
		{"flow case", "script: s.js\ncases: [{name: a, result: 2}]\n"},
		{"flow root", "{script: s.js, result: 2}\n"},
		{"lone carriage returns", "script: s.js\rresult: 2\r"},
		{"second document", "script: s.js\nresult: 2\n---\nx: 1\n"},
		{"anchor in the value", "script: s.js\nresult: &r 2\nresultMatch: *r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := input.YAMLNode([]byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			m := doc.Content[0]
			if v := valueOf(m, "cases"); v != nil {
				m = v.Content[0]
			}
			e := mapEdit{line: m.Line, column: m.Column}
			e.set("result", result)
			if _, ok := editInPlace([]byte(tc.text), []mapEdit{e}); ok {
				t.Error("edited in place; want it declined")
			}
		})
	}
}

// TestEditInPlaceCRLF: a CRLF file stays CRLF, edited in place.
func TestEditInPlaceCRLF(t *testing.T) {
	text := "# keep\r\nscript: s.js\r\ninput: { id: 1 }\r\n\r\nresult: 2\r\n"
	e := mapEdit{line: 2, column: 1}
	e.set("result", &yaml.Node{Kind: yaml.ScalarNode, Value: "3"})
	e.set("calls", jsonNode([]byte(`[{"method":"GET"}]`)))
	got, ok := editInPlace([]byte(text), []mapEdit{e})
	want := "# keep\r\nscript: s.js\r\ninput: { id: 1 }\r\n\r\nresult: 3\r\ncalls:\r\n  - method: GET\r\n"
	if !ok || string(got) != want {
		t.Errorf("ok %v, got %q\nwant %q", ok, got, want)
	}
}

// fuzzValues are the values the fuzz target sets: scalars of every
// style, block and flow collections, a multi-line string.
func fuzzValue(i int, s string) *yaml.Node {
	switch i % 6 {
	case 0:
		return &yaml.Node{Kind: yaml.ScalarNode, Value: s}
	case 1:
		return jsonNode([]byte(`{"a":[1,"x"],"b":{"c":null}}`))
	case 2:
		return jsonNode([]byte(`[]`))
	case 3:
		n := nodeOf(map[string]any{"k": s, "l": []any{s, 1}})
		return n
	case 4:
		return &yaml.Node{Kind: yaml.ScalarNode, Value: s + "\n\n  indented\n", Style: yaml.LiteralStyle}
	default:
		return &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: s}}}
	}
}

// FuzzUpdateInPlace: whenever editInPlace edits a file (it may decline),
// the file it writes decodes to the same value as the full rewrite of
// the same changes.
func FuzzUpdateInPlace(f *testing.F) {
	for _, g := range []string{"testdata/update/*.test.yaml", "../testdata/ci/tests/*.test.yaml", "../cmd/restls/testdata/scripttest/*.test.yaml"} {
		files, _ := filepath.Glob(g)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(string(data), 0, 1, "x")
			f.Add(string(data), 3, 7, "multi\nline")
			f.Add(strings.ReplaceAll(string(data), "\n", "\r\n"), 1, 5, "crlf")
		}
	}
	f.Add("a: 1\nb:\n  - c\n  # comment\n\n# foot\n", 1, 2, "")
	f.Add("a: |+\n  keep\n\n\nb: 2\n", 0, 4, "v")
	var long strings.Builder
	for i := range 300 {
		long.WriteString("  - name: c" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "\n    result: {a: [1, {b: c}]}\n\n")
	}
	f.Add("cases:\n"+long.String(), 5, 9, "y")
	f.Add("r: "+strings.Repeat("[", 2000)+strings.Repeat("]", 2000)+"\n", 0, 0, "z")
	f.Fuzz(fuzzUpdateBody)
}

func fuzzUpdateBody(t *testing.T, text string, pick, op int, s string) {
	{
		if len(text) > 1<<16 {
			return
		}
		data := []byte(text)
		doc, err := input.YAMLNode(data)
		if err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
			return
		}
		// The block mappings, in document order; pick chooses one or two.
		var maps []*yaml.Node
		for _, n := range preorder(doc.Content[0]) {
			if n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0 && len(n.Content) >= 2 {
				maps = append(maps, n)
			}
		}
		if len(maps) == 0 {
			return
		}
		if pick < 0 {
			pick = -pick
		}
		if op < 0 {
			op = -op
		}
		var edits []mapEdit
		for k, m := range []*yaml.Node{maps[pick%len(maps)], maps[(pick/7)%len(maps)]} {
			if k == 1 && m == maps[pick%len(maps)] {
				break
			}
			e := mapEdit{line: m.Line, column: m.Column}
			existing := m.Content[(op%(len(m.Content)/2))*2].Value
			switch op % 4 {
			case 0:
				e.set(existing, fuzzValue(op/4, s))
			case 1:
				e.del(existing)
				e.set("result", fuzzValue(op/4, s))
			case 2:
				e.del(existing)
			default:
				e.set("calls", fuzzValue(op/4, s))
				e.set("logs", fuzzValue(op/4+1, s))
			}
			edits = append(edits, e)
		}
		edited, ok := editInPlace(data, edits)
		if !ok {
			return
		}
		// The full rewrite of the same changes.
		for i := range edits {
			for _, n := range preorder(doc.Content[0]) {
				if n.Kind == yaml.MappingNode && n.Line == edits[i].line && n.Column == edits[i].column {
					edits[i].apply(n)
					break
				}
			}
		}
		var full bytes.Buffer
		if err := encodeYAML(&full, doc); err != nil {
			return
		}
		want, ok1 := decodeValue(full.Bytes())
		got, ok2 := decodeValue(edited)
		if !ok1 {
			return // the full rewrite does not read back (not ours to judge)
		}
		if !ok2 || !sameDecoded(want, got) {
			if !rewriteKeepsMeaning(data) {
				// The full rewrite is no oracle for this file: with no
				// edit at all it changes what the file says (an implicit
				// null in a flow mapping, an empty key, both written as
				// ''). The save keeps the full rewrite here anyway: it
				// takes the in-place edit only when both read the same.
				return
			}
			t.Fatalf("in place differs from the full rewrite:\n--- file\n%s\n--- in place\n%s\n--- full\n%s\n%s", text, edited, full.String(), diffDecoded(want, got))
		}
	}
}

// rewriteKeepsMeaning reports whether the full rewrite of data, with no
// change, decodes to what data decodes to.
func rewriteKeepsMeaning(data []byte) bool {
	doc, err := input.YAMLNode(data)
	if err != nil {
		return false
	}
	var b bytes.Buffer
	if encodeYAML(&b, doc) != nil {
		return false
	}
	orig, ok0 := decodeValue(data)
	again, ok1 := decodeValue(b.Bytes())
	return ok0 && ok1 && sameDecoded(orig, again)
}

// sameDecoded compares two decoded YAML values as cmp.Equal does with
// EquateNaNs and EquateEmpty, in linear time: cmp.Equal diffs unequal
// slices element by element, and on lists nested 2,000 deep (a 4 KB
// file) that takes longer than the fuzzer's 10 s for one input.
func sameDecoded(a, b any) bool {
	return reflect.DeepEqual(normDecoded(a), normDecoded(b))
}

// diffDecoded says how two decoded values differ: cmp.Diff's report when
// they are shallow enough for it, else both values.
func diffDecoded(a, b any) string {
	if depthDecoded(a) < 50 && depthDecoded(b) < 50 {
		return cmp.Diff(a, b)
	}
	return fmt.Sprintf("want %v\ngot  %v", a, b)
}

// nanValue stands for every NaN in a normalised value.
type nanValue struct{}

// normDecoded is v with every NaN replaced by nanValue and every empty
// list or mapping by a non-nil empty one.
func normDecoded(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) {
			return nanValue{}
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normDecoded(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normDecoded(e)
		}
		return out
	case map[any]any:
		out := make(map[any]any, len(x))
		for k, e := range x {
			out[k] = normDecoded(e)
		}
		return out
	}
	return v
}

func depthDecoded(v any) int {
	d := 0
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			d = max(d, depthDecoded(e))
		}
		return d + 1
	case map[string]any:
		for _, e := range x {
			d = max(d, depthDecoded(e))
		}
		return d + 1
	case map[any]any:
		for _, e := range x {
			d = max(d, depthDecoded(e))
		}
		return d + 1
	}
	return 0
}

// TestUpdateRefusesOversizedFile: --update does not write a test file
// that restls test would refuse to read back.
func TestUpdateRefusesOversizedFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.js"), []byte("return 'ab '.repeat(1500000);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "big.test.yaml")
	if err := os.WriteFile(file, []byte("script: big.js\nresult: small\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := config.Load(config.Sources{ConfigRoot: "../testdata/config"})
	rep, err := Run(context.Background(), Options{Paths: []string{file}, Snapshot: workspace.Snapshot{Config: snap}, Update: true, Workers: 1})
	if err != nil || len(rep.Outcomes) != 1 {
		t.Fatal(err)
	}
	o := rep.Outcomes[0]
	if o.Updated || o.Passed || len(o.Failures) == 0 || !strings.Contains(strings.Join(o.Failures, "\n"), "past the 4194304-byte limit for test files") {
		t.Fatalf("got updated %v, failures %q; want the size refused", o.Updated, o.Failures)
	}
	if after, _ := os.ReadFile(file); string(after) != "script: big.js\nresult: small\n" {
		t.Errorf("the file changed: %d bytes", len(after))
	}
}
