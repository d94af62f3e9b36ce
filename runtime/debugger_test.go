package runtime

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/restls/restls/runtime/dryrun"
)

// scopesAt is a debugging observer that keeps the scopes, and the value
// of each local, where the run reaches line.
type scopesAt struct {
	debugging
	line   int
	scopes *dryrun.Scopes
	values map[string]string
}

func (o *scopesAt) StatementStack(line, _ int, p dryrun.Paused) {
	if line != o.line || o.scopes != nil {
		return
	}
	sc := p.Scopes()
	o.scopes = &sc
	o.values = map[string]string{}
	for _, n := range sc.Local {
		v, err := p.Inspect(n)
		if err != nil {
			o.values[n] = err.Error()
			continue
		}
		o.values[n] = v.Value
	}
}

// TestScopesDestructuringAndLoops: Locals name what destructuring
// patterns and a for loop's let or const declare, with their values
// where the run stands.
func TestScopesDestructuringAndLoops(t *testing.T) {
	src := `function f(x) {
  const {a, b: [c, d = 4], ...rest} = x;
  for (let i = 0; i < 1; i++) {
    for (const [k, v] of [["x", 1]]) {
      return a + c + d + i + k + v + rest.z;
    }
  }
}
return f({a: 1, b: [2], z: 9});`
	obs := &scopesAt{line: 5}
	res := Run(context.Background(), Options{Source: src, Observer: obs, Statements: true})
	if res.Error != nil || string(res.Result) != `"7x19"` {
		t.Fatalf("run: %s %+v", res.Result, res.Error)
	}
	if obs.scopes == nil {
		t.Fatal("the run never reached line 5")
	}
	want := []string{"k", "v", "i", "a", "c", "d", "rest", "x"}
	if !slices.Equal(obs.scopes.Local, want) {
		t.Errorf("Locals at line 5: %v, want %v", obs.scopes.Local, want)
	}
	for n, v := range map[string]string{"k": `"x"`, "v": "1", "i": "0", "a": "1", "c": "2", "d": "4", "rest": "{z: 9}"} {
		if obs.values[n] != v {
			t.Errorf("%s = %s, want %s", n, obs.values[n], v)
		}
	}
}

// TestDebugNonSimpleParameters: goja fails on a direct eval in a
// closure made right in a function whose parameters are a default, a
// rest or a pattern; a debug run of such a function runs as a plain run
// does, and says why it cannot evaluate there.
func TestDebugNonSimpleParameters(t *testing.T) {
	src := `function f({a, b}, c = 3, ...more) {
  return a + b + c + more.length;
}
return f({a: 1, b: 2}, undefined, 7, 8);`
	obs := &scopesAt{line: 2}
	res := Run(context.Background(), Options{Source: src, Observer: obs, Statements: true})
	if res.Error != nil || string(res.Result) != "8" {
		t.Fatalf("debug run: %s %+v, want 8 as a plain run gives", res.Result, res.Error)
	}
	if want := []string{"a", "b", "c", "more"}; obs.scopes == nil || !slices.Equal(obs.scopes.Local, want) {
		t.Fatalf("Locals at line 2: %v, want %v", obs.scopes, want)
	}
	if v := obs.values["a"]; !strings.Contains(v, "cannot evaluate in a function with a default, rest or destructured parameter") {
		t.Errorf("a = %q, want why it cannot be shown", v)
	}
}
