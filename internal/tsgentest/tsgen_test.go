package tsgentest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type level int

func (l level) MarshalJSON() ([]byte, error) { return json.Marshal([]string{"", "low", "high"}[l]) }

type place struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
}

type inner struct {
	Shadowed string `json:"shadowed"`
	Deep     bool   `json:"deep"`
}

type note struct {
	place
	*inner
	Shadowed  int               `json:"shadowed"`
	Level     level             `json:"level"`
	Raw       json.RawMessage   `json:"raw"`
	Data      []byte            `json:"data"`
	When      time.Time         `json:"when"`
	Parent    *note             `json:"parent"`
	Children  []*note           `json:"children,omitempty"`
	Tags      map[string]string `json:"tags"`
	Counts    map[int][]string  `json:"counts,omitempty"`
	ID        int64             `json:"id,string"`
	Any       any               `json:"any"`
	Anon      struct{ A bool }  `json:"anon"`
	Hidden    string            `json:"-"`
	Untagged  float64
	odd       string
	WeirdName string `json:"x-y"`
}

var fixtureConfig = Config{
	Exprs: map[reflect.Type]string{
		reflect.TypeFor[json.RawMessage](): "unknown",
		reflect.TypeFor[time.Time]():       "string",
	},
	Enums:       map[reflect.Type][]any{reflect.TypeFor[level](): {"low", "high"}},
	TrimPackage: "github.com/restls/restls/",
}

// TestGenerate pins what each encoding/json rule becomes.
func TestGenerate(t *testing.T) {
	_ = note{}.odd
	got, err := Generate(fixtureConfig, RootOf[note]("Note"))
	if err != nil {
		t.Fatal(err)
	}
	want := `/** Note is Go's internal/tsgentest.note. */
export interface Note {
  file: string
  line?: number
  deep: boolean
  shadowed: number
  level: Level
  raw: unknown
  data: string | null
  when: string
  parent: Note | null
  children?: Note[]
  tags: Record<string, string> | null
  counts?: Record<string, string[] | null>
  id: string
  any: unknown
  anon: {A: boolean}
  Untagged: number
  "x-y": string
}

/** Level is Go's internal/tsgentest.level. */
export type Level = "low" | "high"
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Generate (-want +got):\n%s", diff)
	}
}

type fixtureV1 struct {
	Name string `json:"name"`
}

type fixtureV2 struct {
	Name  string `json:"name"`
	Count int    `json:"count,omitempty"`
}

type fixtureV3 struct {
	Name string `json:"title"`
}

// TestFieldChangeChangesOutput: adding a Go field or renaming its json
// tag changes the declarations, so a stale generated file differs from a
// fresh one (web's TestWireTypesUpToDate then fails).
func TestFieldChangeChangesOutput(t *testing.T) {
	gen := func(r Root) string {
		t.Helper()
		s, err := Generate(Config{}, r)
		if err != nil {
			t.Fatal(err)
		}
		// The Go type's own name is in the comment; compare the shape.
		_, body, _ := strings.Cut(s, "\n")
		return body
	}
	v1 := gen(RootOf[fixtureV1]("Fixture"))
	v2 := gen(RootOf[fixtureV2]("Fixture"))
	v3 := gen(RootOf[fixtureV3]("Fixture"))
	if v1 != "export interface Fixture {\n  name: string\n}\n" {
		t.Fatalf("v1 = %q", v1)
	}
	if !strings.Contains(v2, "  count?: number\n") {
		t.Errorf("a new omitempty field is not an optional member:\n%s", v2)
	}
	if !strings.Contains(v3, "  title: string\n") || strings.Contains(v3, "name") {
		t.Errorf("a renamed json tag is not the member's name:\n%s", v3)
	}
}

type ownJSON struct{ v string }

func (o ownJSON) MarshalJSON() ([]byte, error) { return json.Marshal(o.v) }

type holdsOwn struct {
	O ownJSON `json:"o"`
}

type lazy struct {
	A string `json:"a"`
}

func (l *lazy) MarshalJSON() ([]byte, error) {
	type plain lazy
	return json.Marshal((*plain)(l))
}

type a1 struct {
	X string
}

type a2 struct {
	X int
}

type both struct {
	a1
	a2
	Y string `json:"y"`
}

type other struct{}

func TestGenerateRefusals(t *testing.T) {
	if _, err := Generate(Config{}, RootOf[holdsOwn]("")); err == nil || !strings.Contains(err.Error(), "ownJSON writes its own JSON") {
		t.Errorf("a MarshalJSON type without a shape: err = %v", err)
	}
	got, err := Generate(Config{Structural: map[reflect.Type]bool{reflect.TypeFor[lazy](): true}}, RootOf[lazy](""))
	if err != nil || !strings.Contains(got, "export interface Lazy {\n  a: string\n}") {
		t.Errorf("a Structural type: %q, %v", got, err)
	}
	if _, err := Generate(Config{}, RootOf[lazy]("")); err == nil {
		t.Error("a MarshalJSON struct not marked Structural was reflected")
	}
	if _, err := Generate(Config{}, RootOf[fixtureV1]("Same"), RootOf[other]("Same")); err == nil || !strings.Contains(err.Error(), "both named Same") {
		t.Errorf("two types, one name: err = %v", err)
	}
	// encoding/json writes neither of two embedded fields of one name at one depth.
	got, err = Generate(Config{}, RootOf[both]("Both"))
	if err != nil || strings.Contains(got, "X:") || !strings.Contains(got, "y: string") {
		t.Errorf("an ambiguous embedded field was written: %q, %v", got, err)
	}
	if _, err := Generate(Config{}, Root{Name: "F", Type: reflect.TypeFor[func()]()}); err == nil {
		t.Error("a func type was declared")
	}
}

// TestGeneratorExpr: a table written by hand (web's CommandResults) gets
// the expressions of its types, which declares what they refer to, and
// comes after the declarations.
func TestGeneratorExpr(t *testing.T) {
	g := New(Config{})
	expr, err := g.Expr(reflect.TypeFor[map[string]*fixtureV2]())
	if err != nil {
		t.Fatal(err)
	}
	if expr != "Record<string, FixtureV2> | null" {
		t.Errorf("Expr = %q", expr)
	}
	if expr, err := g.Expr(reflect.TypeFor[*fixtureV1]()); err != nil || expr != "FixtureV1 | null" {
		t.Errorf("Expr = %q, %v", expr, err)
	}
	g.Add("export interface Table {\n  a: FixtureV2\n}\n")
	got := g.String()
	if i, j := strings.Index(got, "interface FixtureV2"), strings.Index(got, "interface Table"); i < 0 || j < i {
		t.Errorf("declarations out of order:\n%s", got)
	}
	// A root named after something already referred to it is an error,
	// not a second name.
	if err := g.Declare(RootOf[fixtureV1]("Renamed")); err == nil {
		t.Error("renaming a declared type was accepted")
	}
}

type argsFixture struct {
	URI   string  `json:"uri"`
	Place place   `json:"place"`
	Mock  *string `json:"mock"`
}

// TestParams: a type the server decodes has every member of its own
// optional (decoding leaves an absent one zero); what it refers to is
// declared as encoded.
func TestParams(t *testing.T) {
	got, err := Generate(Config{}, Root{Name: "Args", Type: reflect.TypeFor[argsFixture](), Params: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  uri?: string\n", "  place?: Place\n", "  mock?: string | null\n", "export interface Place {\n  file: string\n  line?: number\n}"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	g := New(Config{})
	if _, err := g.Expr(reflect.TypeFor[argsFixture]()); err != nil {
		t.Fatal(err)
	}
	if err := g.Declare(Root{Type: reflect.TypeFor[argsFixture](), Params: true}); err == nil {
		t.Error("a type declared as encoded was declared again as params")
	}
}
