package input

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v4"
)

// bomb is a "billion laughs" document: levels anchors, each a list of
// width aliases to the one before, so the last expands to width^levels
// values.
func bomb(levels, width int) string {
	var b strings.Builder
	b.WriteString("a0: &a0 [" + strings.Repeat("lol,", width-1) + "lol]\n")
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [%s*a%d]\n", i, i, strings.Repeat(fmt.Sprintf("*a%d,", i-1), width-1), i-1)
	}
	return b.String()
}

// textBomb repeats one long string by aliases: few values, much text.
func textBomb(size, times int) string {
	return "s: &s " + strings.Repeat("x", size) + "\nl: [" + strings.Repeat("*s,", times-1) + "*s]\n"
}

// deepAlias nests an anchored list of depth levels inside itself n times
// by aliases: shallow as written, deep expanded.
func deepAlias(depth, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "d0: &d0 %s1%s\n", strings.Repeat("[", depth), strings.Repeat("]", depth))
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "d%d: &d%d %s*d%d%s\n", i, i, strings.Repeat("[", depth), i-1, strings.Repeat("]", depth))
	}
	return b.String()
}

// decodeYAML decodes the first document of data into v, strictly, within
// the budget.
func decodeYAML(data []byte, v any) error {
	doc, err := YAMLNode(data)
	if err != nil {
		return err
	}
	return DecodeYAMLNode(doc, v)
}

func TestYAMLBudgetRefusesBombs(t *testing.T) {
	for _, tc := range []struct {
		name, doc  string
		line, col  int
		msgContain string
	}{
		// The 560-byte bomb of issue 23 finding 5: 9 levels of 9.
		{"billion laughs", bomb(9, 9), 5, 10, "values (10 times the 101 it holds"},
		{"one long string many times", textBomb(1<<20, 30), 2, 35, "text past"},
		{"deep through aliases", deepAlias(1000, 11), 10, 1009, "nested deeper than 10000"},
		{"an alias inside its own anchor", "a: &a [1, *a]\n", 1, 11, "holds it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := YAMLNode([]byte(tc.doc))
			var be *YAMLBudgetError
			if !errors.As(err, &be) {
				t.Fatalf("got %v, want a budget error", err)
			}
			if !errors.Is(err, ErrYAMLBudget) || !strings.Contains(be.Msg, tc.msgContain) {
				t.Errorf("got %v, want ErrYAMLBudget saying %q", err, tc.msgContain)
			}
			if be.Line != tc.line || be.Column != tc.col {
				t.Errorf("at %d:%d, want %d:%d (%v)", be.Line, be.Column, tc.line, tc.col, err)
			}
			// Placed as yaml/v4's own errors are.
			var le *yaml.LoadError
			if !errors.As(err, &le) || le.Mark.Line != tc.line || le.Mark.Column != tc.col || le.Message != be.Msg {
				t.Errorf("as a LoadError: %+v", le)
			}
			var v any
			if err := decodeYAML([]byte(tc.doc), &v); !errors.Is(err, ErrYAMLBudget) {
				t.Errorf("decoding into a value: %v, want the budget error", err)
			}
		})
	}
}

func TestYAMLBudgetAcceptsReuse(t *testing.T) {
	for name, doc := range map[string]string{
		// A merge key in each of 100 services.
		"merge keys": "defaults: &d {timeout: 5s, retries: 3, auth: {type: basic, user: u}}\nservices:\n" +
			strings.Repeat("  - {<<: *d, serviceId: s, url: 'https://x'}\n", 100),
		// A short file reusing a body within the floor.
		"short file": bomb(3, 9),
		// Expansion 9 times the document: under the multiple.
		"ninefold":        "a: &a [" + strings.Repeat("x,", 3000) + "x]\nb: [" + strings.Repeat("*a,", 8) + "*a]\n",
		"deep as written": strings.Repeat("[", MaxYAMLDepth-1) + strings.Repeat("]", MaxYAMLDepth-1),
		"empty":           "",
	} {
		t.Run(name, func(t *testing.T) {
			n, err := YAMLNode([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			var want yaml.Node
			if err := yaml.Unmarshal([]byte(doc), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*n, want) {
				t.Error("the node differs from yaml.Unmarshal's")
			}
		})
	}
}

// TestYAMLBudgetMemory: refusing the bomb costs about the document, not
// its expansion.
func TestYAMLBudgetMemory(t *testing.T) {
	doc := []byte(bomb(9, 9))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range 10 {
		var v any
		if err := decodeYAML(doc, &v); !errors.Is(err, ErrYAMLBudget) {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 10; per > 1<<20 {
		t.Errorf("a 9x9 bomb allocates %d bytes to refuse, want under 1 MiB", per)
	}
}

func TestDecodeYAMLStrict(t *testing.T) {
	type fixture struct {
		Status int    `yaml:"status"`
		Name   string `yaml:"name"`
	}
	var f fixture
	err := decodeYAML([]byte("name: x\n  # c\nstauts: 404\n"), &f)
	var le *yaml.LoadError
	if !errors.As(err, &le) || le.Mark.Line != 3 || le.Mark.Column != 1 || !strings.Contains(le.Message, "field stauts not found") {
		t.Fatalf("got %v (%+v), want field stauts not found at 3:1", err, le)
	}
	f = fixture{Status: 7}
	if err := decodeYAML(nil, &f); err != nil || f.Status != 7 {
		t.Errorf("empty document: %v, %+v; want v untouched", err, f)
	}
}

func TestYAMLDecoderStream(t *testing.T) {
	// Each document alone fits the floor; the stream does not.
	one := bomb(4, 9) // 9^4 = 6561 values
	d, err := NewYAMLDecoder([]byte(one + "---\n" + one + "---\n" + one))
	if err != nil {
		t.Fatal(err)
	}
	var errAt error
	docs := 0
	for {
		_, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			errAt = err
			break
		}
		docs++
	}
	if docs != 1 || !errors.Is(errAt, ErrYAMLBudget) {
		t.Errorf("read %d documents then %v; want 1, then the budget error", docs, errAt)
	}
}

// expandedCost walks n through its aliases as a naive walker would,
// stopping once it passes limit values.
func expandedCost(n *yaml.Node, depth int, limit int64, c *yamlCost) {
	if c.nodes > limit || depth > MaxYAMLDepth+1 {
		return
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias != nil {
			expandedCost(n.Alias, depth, limit, c)
		}
		return
	}
	c.nodes++
	c.text += int64(len(n.Value))
	if collection(n) {
		depth++
		c.height = max(c.height, depth)
	}
	for _, ch := range n.Content {
		expandedCost(ch, depth, limit, c)
	}
}

func FuzzYAMLBudget(f *testing.F) {
	for _, s := range []string{
		"a: 1\n", "a: &a [1, 2]\nb: *a\n", "a: &a {x: 1}\nb: {<<: *a, y: 2}\n",
		"a: &a [1, *a]\n", "- &x x\n- *x\n- *y\n", "--- &a [1]\n--- *a\n",
		bomb(9, 9), bomb(3, 9), bomb(5, 4), textBomb(1000, 2000), deepAlias(1000, 11),
		strings.Repeat("[", 3000) + strings.Repeat("]", 3000),
		strings.Repeat("- a: [1, 2, {b: c}]\n", 1000),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkYAMLBudget)
}

// checkYAMLBudget is FuzzYAMLBudget's check of one input.
func checkYAMLBudget(t *testing.T, data []byte) {
	{
		n, err := YAMLNode(data)
		var plain yaml.Node
		plainErr := yaml.Unmarshal(data, &plain)
		if errors.Is(err, ErrYAMLBudget) {
			// Refused: the expansion is really past the budget.
			own, ownText := ownCost(&plain)
			maxNodes, maxText := YAMLExpansion*own+YAMLExpansionFloor, YAMLExpansion*ownText+YAMLTextFloor
			var c yamlCost
			expandedCost(&plain, 0, maxNodes, &c)
			if c.nodes <= maxNodes && c.text <= maxText && c.height <= MaxYAMLDepth && !strings.Contains(err.Error(), "holds it") {
				t.Fatalf("refused within the budget (%d values, %d bytes, depth %d): %v", c.nodes, c.text, c.height, err)
			}
			return
		}
		if (err == nil) != (plainErr == nil) {
			t.Fatalf("YAMLNode: %v; yaml.Unmarshal: %v", err, plainErr)
		}
		if err != nil {
			return
		}
		if !reflect.DeepEqual(*n, plain) {
			t.Fatal("the node differs from yaml.Unmarshal's")
		}
		// Accepted: a naive walker stays within the budget.
		own, ownText := ownCost(n)
		var c yamlCost
		expandedCost(n, 0, YAMLExpansion*own+YAMLExpansionFloor, &c)
		if c.nodes > YAMLExpansion*own+YAMLExpansionFloor || c.text > YAMLExpansion*ownText+YAMLTextFloor || c.height > MaxYAMLDepth {
			t.Fatalf("accepted past the budget: %d values, %d bytes, depth %d", c.nodes, c.text, c.height)
		}
		// And decoding into Go values agrees with yaml/v4's (what a failed
		// decode leaves may differ: yaml/v4 stops at a mapping with a
		// duplicate key, DecodeYAMLNode goes on to report more).
		var got, want any
		errGot, errWant := DecodeYAMLNode(n, &got), plain.Load(&want, yaml.WithKnownFields())
		if (errGot == nil) != (errWant == nil) || errGot == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded %v (%v), yaml/v4 %v (%v)", got, errGot, want, errWant)
		}
	}
}

// BenchmarkYAMLBudget is the cost of the budget over parsing alone, for
// a 1 MB configuration-like document without aliases.
func BenchmarkYAMLBudget(b *testing.B) {
	doc := []byte(strings.Repeat("- serviceId: s\n  url: https://example.test/x\n  headers: {a: b, c: d}\n", 15000))
	b.Run("yaml.Unmarshal", func(b *testing.B) {
		for b.Loop() {
			var n yaml.Node
			if err := yaml.Unmarshal(doc, &n); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("YAMLNode", func(b *testing.B) {
		for b.Loop() {
			if _, err := YAMLNode(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestUnknownYAMLKey: the key a strict decode names, read from the
// decoder's own error, and nothing from any other error.
func TestUnknownYAMLKey(t *testing.T) {
	n, err := YAMLNode([]byte("status: 1\nstauts: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Status int `yaml:"status"`
	}
	err = DecodeYAMLNode(n, &v)
	var le *yaml.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("strict decode of an unknown key = %v, want a LoadError", err)
	}
	if key, ok := UnknownYAMLKey(le.Message); !ok || key != "stauts" {
		t.Errorf("UnknownYAMLKey(%q) = %q, %v; want stauts", le.Message, key, ok)
	}
	if key, ok := UnknownYAMLKey("cannot construct !!str `x` into int"); ok {
		t.Errorf("UnknownYAMLKey of another error = %q", key)
	}
}
