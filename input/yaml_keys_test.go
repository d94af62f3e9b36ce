package input

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v4"
)

// yamlOwnErrors decodes doc into v as yaml/v4 does with its own check of
// duplicate keys (quadratic: small documents only), and lists each
// error as "line N: message".
func yamlOwnErrors(t testing.TB, doc *yaml.Node, v any, opts ...yaml.Option) []string {
	t.Helper()
	return loadErrorLines(doc.Load(v, opts...))
}

func loadErrorLines(err error) []string {
	if err == nil {
		return nil
	}
	var errs *yaml.LoadErrors
	if !errors.As(err, &errs) {
		return []string{err.Error()}
	}
	var out []string
	for _, e := range errs.Errors {
		out = append(out, fmt.Sprintf("line %d: %s", e.Mark.Line, e.Message))
	}
	return out
}

// TestDecodeYAMLDuplicateKeys: the linear check finds the duplicate keys
// yaml/v4's own check finds, with the same message and position, where
// a key appears at most twice (three copies give yaml/v4 one error per
// pair, two of them on the third line; we give one per repeat).
func TestDecodeYAMLDuplicateKeys(t *testing.T) {
	type strict struct {
		A int `yaml:"a"`
	}
	for _, tc := range []struct {
		name, doc string
		strict    bool
		want      []string // our errors, in document order
	}{
		{"none", "a: 1\nb: 2\n", false, nil},
		{"top level", "a: 1\nb: 2\na: 3\n", false, []string{`line 3: mapping key "a" already defined at line 1`}},
		{"nested", "x:\n  y: 1\n  y: 2\nz: [{k: 1, k: 2}]\n", false, []string{
			`line 3: mapping key "y" already defined at line 2`,
			`line 4: mapping key "k" already defined at line 4`,
		}},
		{"merge keys", "a: &a {x: 1}\nb:\n  <<: *a\n  <<: {y: 2}\n", false, []string{`line 4: mapping key "<<" already defined at line 3`}},
		{"same text, other tag", "1: a\n\"1\": b\n", false, []string{`line 2: mapping key "1" already defined at line 1`}},
		{"through an alias", "base: &b\n  k: 1\n  k: 2\nuse: *b\n", false, []string{`line 3: mapping key "k" already defined at line 2`}},
		{"with an unknown field", "a: 1\nzz: 2\na: 3\n", true, []string{
			`line 2: field zz not found in type input.strict`,
			`line 3: mapping key "a" already defined at line 1`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := YAMLNode([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			var own []string
			if tc.strict {
				var v strict
				got = loadErrorLines(DecodeYAMLNode(doc, &v))
				var w strict
				own = yamlOwnErrors(t, doc, &w, yaml.WithKnownFields())
			} else {
				var v any
				got = loadErrorLines(DecodeYAMLValue(doc, &v))
				var w any
				own = yamlOwnErrors(t, doc, &w)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
			// yaml/v4 stops at a mapping with a duplicate key (so it
			// does not report the unknown field after it); the
			// duplicates are the same.
			got = duplicates(got)
			own = duplicates(own)
			if !slices.Equal(got, own) {
				t.Errorf("yaml/v4's own check says\n\t%s\nwe say\n\t%s", strings.Join(own, "\n\t"), strings.Join(got, "\n\t"))
			}
		})
	}
}

func duplicates(errs []string) []string {
	var out []string
	for _, e := range errs {
		if strings.Contains(e, "already defined") {
			out = append(out, e)
		}
	}
	slices.Sort(out)
	return slices.Compact(out) // yaml/v4 reports an aliased mapping's keys at each alias
}

// TestDecodeYAMLManyDuplicates: 13,000 copies of one key (64 KiB) fail
// with the first maxDuplicateKeys of them. yaml/v4's own check takes
// minutes and gigabytes on this document (one error per pair of lines);
// `go test -run TestDecodeYAMLManyDuplicates` would time out.
func TestDecodeYAMLManyDuplicates(t *testing.T) {
	doc, err := YAMLNode([]byte("a: &a [1]\n" + strings.Repeat("b: *a\n", 13_000)))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	got := loadErrorLines(DecodeYAMLValue(doc, &v))
	if len(got) != maxDuplicateKeys || got[0] != `line 3: mapping key "b" already defined at line 2` {
		t.Fatalf("got %d errors, first %q", len(got), got[:min(1, len(got))])
	}
}

// FuzzDecodeYAMLKeys is the differential test of the linear check: on
// documents small enough for yaml/v4's own quadratic one, a decode fails
// exactly when yaml/v4's does, and every duplicate key we report, it
// reports too.
func FuzzDecodeYAMLKeys(f *testing.F) {
	f.Add("a: 1\nb: 2\na: 3\n")
	f.Add("x: {k: 1, k: 2, k: 3}\n")
	f.Add("a: &a {x: 1, x: 2}\nb: [*a, *a]\n")
	f.Add("? [1, 2]\n: a\n? [1, 2]\n: b\n")
	f.Add("<<: {a: 1}\n<<: {b: 2}\n")
	f.Add("{a: 1, 'a': 2, \"a\": 3, ? a}\n")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4<<10 {
			return
		}
		doc, err := YAMLNode([]byte(text))
		if err != nil {
			return
		}
		var v, w any
		got := loadErrorLines(DecodeYAMLValue(doc, &v))
		own := yamlOwnErrors(t, doc, &w)
		if (len(got) == 0) != (len(own) == 0) {
			t.Fatalf("we say %q, yaml/v4 says %q", got, own)
		}
		for _, e := range got {
			if strings.Contains(e, "already defined") && !slices.Contains(own, e) {
				t.Fatalf("we report %q, yaml/v4 does not: %q", e, own)
			}
		}
	})
}

// BenchmarkDecodeYAMLKeys: a mapping of 50,000 distinct keys (about
// 700 KiB), decoded into any. yaml/v4's own check compares 1.25 billion
// pairs of keys here.
func BenchmarkDecodeYAMLKeys(b *testing.B) {
	var s strings.Builder
	for i := range 50_000 {
		s.WriteString("key" + strconv.Itoa(i) + ": 1\n")
	}
	doc, err := YAMLNode([]byte(s.String()))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := DecodeYAMLValue(doc, &v); err != nil {
			b.Fatal(err)
		}
	}
}
