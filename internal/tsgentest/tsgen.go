package tsgentest

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Config says how types reflection cannot see through are written.
type Config struct {
	// Names are the TypeScript names of Go types; by default a type's Go
	// name, capitalised, without a "JSON" suffix. Two types with one name
	// are an error: name one of them here.
	Names map[reflect.Type]string
	// Exprs are TypeScript type expressions written in place of a type:
	// for a type with its own MarshalJSON (json.RawMessage: "unknown",
	// time.Time: "string").
	Exprs map[reflect.Type]string
	// Enums are the values a named type takes (config.Kind's kinds, the
	// names Severity's MarshalJSON writes): declared as a union of
	// literals under the type's name.
	Enums map[reflect.Type][]any
	// Structural are types whose MarshalJSON writes their own fields (it
	// only fills lazily built ones first): reflected as structs.
	Structural map[reflect.Type]bool
	// TrimPackage is cut from the front of package paths in comments.
	TrimPackage string
}

// Root is a type to declare under a name, with everything it refers to.
type Root struct {
	Name string
	Type reflect.Type
	// Params marks a type the server decodes (a command's argument):
	// its own members are optional, since decoding leaves an absent one
	// zero; the types they refer to are declared as encoded.
	Params bool
}

// RootOf is the Root of T's type, named name ("" for the default name).
func RootOf[T any](name string) Root {
	return Root{Name: name, Type: reflect.TypeFor[T]()}
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	identifier    = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)
)

// maxDepth bounds how deep embedded structs are followed (encoding/json
// follows any depth; real types embed one or two levels).
const maxDepth = 16

// Generator collects declarations: of the types declared, of every
// named struct or enum they refer to, and hand-written ones, in the order
// they were first needed.
type Generator struct {
	cfg    Config
	names  map[reflect.Type]string // declared (or being declared) types
	owners map[string]reflect.Type // name -> type, for collisions
	order  []reflect.Type
	decls  map[reflect.Type]string
	extra  []string
	params map[reflect.Type]bool
}

// New returns a Generator that writes types as cfg says.
func New(cfg Config) *Generator {
	names := make(map[reflect.Type]string, len(cfg.Names))
	for t, n := range cfg.Names {
		names[t] = n
	}
	cfg.Names = names // the caller's map stays as it was
	return &Generator{cfg: cfg, names: map[reflect.Type]string{}, owners: map[string]reflect.Type{}, decls: map[reflect.Type]string{}, params: map[reflect.Type]bool{}}
}

// Declare declares r's type under r.Name (its default name when empty).
func (g *Generator) Declare(r Root) error {
	t, err := g.name(r)
	if err != nil {
		return err
	}
	_, err = g.declare(t)
	return err
}

// name records r's name for its type, before anything refers to it.
func (g *Generator) name(r Root) (reflect.Type, error) {
	t := r.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if r.Params {
		if _, ok := g.names[t]; ok && !g.params[t] {
			return nil, fmt.Errorf("%s: declared as encoded before it was declared as params", t)
		}
		g.params[t] = true
	}
	if r.Name == "" {
		return t, nil
	}
	if old, ok := g.cfg.Names[t]; ok && old != r.Name {
		return nil, fmt.Errorf("%s: named both %s and %s", t, old, r.Name)
	}
	if old, ok := g.names[t]; ok && old != r.Name {
		return nil, fmt.Errorf("%s: already declared as %s before it was named %s: declare it first", t, old, r.Name)
	}
	g.cfg.Names[t] = r.Name
	return t, nil
}

// Expr is the TypeScript type of a value of type t (null included for a
// nil pointer, slice or map), declaring the named types it refers to.
func (g *Generator) Expr(t reflect.Type) (string, error) {
	return g.expr(t, true)
}

// Add appends a declaration written by the caller (one that refers to
// declared types by the names Expr returned).
func (g *Generator) Add(decl string) { g.extra = append(g.extra, decl) }

// String is every declaration, each followed by a blank line but the last.
func (g *Generator) String() string {
	var b strings.Builder
	for i, t := range g.order {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(g.decls[t])
	}
	for _, d := range g.extra {
		b.WriteByte('\n')
		b.WriteString(d)
	}
	return b.String()
}

// Generate returns TypeScript declarations of roots and every named
// struct or enum they refer to, roots first, then in the order found.
func Generate(cfg Config, roots ...Root) (string, error) {
	g := New(cfg)
	for _, r := range roots { // names first: a root may refer to a later one
		if _, err := g.name(r); err != nil {
			return "", err
		}
	}
	for _, r := range roots {
		if err := g.Declare(r); err != nil {
			return "", err
		}
	}
	return g.String(), nil
}

// declare makes t a declaration and returns its name.
func (g *Generator) declare(t reflect.Type) (string, error) {
	if n, ok := g.names[t]; ok {
		return n, nil
	}
	if t.Name() == "" {
		return "", fmt.Errorf("%s: only named types can be declared", t)
	}
	name := g.cfg.Names[t]
	if name == "" {
		name = defaultName(t.Name())
	}
	if !identifier.MatchString(name) {
		return "", fmt.Errorf("%s: %q is not a TypeScript identifier", t, name)
	}
	if other, ok := g.owners[name]; ok {
		return "", fmt.Errorf("%s and %s are both named %s: give one another name in Config.Names", qualified(other), qualified(t), name)
	}
	g.names[t] = name
	g.owners[name] = t
	g.order = append(g.order, t)
	origin := g.origin(t)
	if vals, ok := g.cfg.Enums[t]; ok {
		lits := make([]string, 0, len(vals))
		for _, v := range vals {
			lit, err := json.Marshal(v)
			if err != nil {
				return "", fmt.Errorf("%s: value %v: %w", t, v, err)
			}
			lits = append(lits, string(lit))
		}
		if len(lits) == 0 {
			return "", fmt.Errorf("%s: Config.Enums lists no values", t)
		}
		g.decls[t] = fmt.Sprintf("/** %s is %s. */\nexport type %s = %s\n", name, origin, name, strings.Join(lits, " | "))
		return name, nil
	}
	if t.Kind() != reflect.Struct || g.marshals(t) && !g.cfg.Structural[t] {
		expr, ok := g.cfg.Exprs[t]
		if !ok {
			if g.marshals(t) && !g.cfg.Structural[t] {
				return "", errOwnJSON(t)
			}
			var err error
			if expr, err = g.kindExpr(t, false); err != nil {
				return "", err
			}
		}
		g.decls[t] = fmt.Sprintf("/** %s is %s. */\nexport type %s = %s\n", name, origin, name, expr)
		return name, nil
	}
	fields, err := g.fields(t)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "/** %s is %s. */\nexport interface %s {\n", name, origin, name)
	for _, f := range fields {
		expr, err := g.fieldExpr(f)
		if err != nil {
			return "", fmt.Errorf("%s.%s: %w", qualified(t), f.goName, err)
		}
		key := f.name
		if !identifier.MatchString(key) {
			k, _ := json.Marshal(key)
			key = string(k)
		}
		opt := ""
		if f.omitEmpty || g.params[t] {
			opt = "?"
		}
		fmt.Fprintf(&b, "  %s%s: %s\n", key, opt, expr)
	}
	b.WriteString("}\n")
	g.decls[t] = b.String()
	return name, nil
}

func (g *Generator) origin(t reflect.Type) string {
	return "Go's " + strings.TrimPrefix(qualified(t), g.cfg.TrimPackage)
}

func qualified(t reflect.Type) string {
	if t.PkgPath() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}

func defaultName(goName string) string {
	n := strings.TrimSuffix(goName, "JSON")
	if n == "" {
		n = goName
	}
	r, size := utf8.DecodeRuneInString(n)
	return string(unicode.ToUpper(r)) + n[size:]
}

// marshals reports whether t writes its own JSON.
func (g *Generator) marshals(t reflect.Type) bool {
	return t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) ||
		t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)
}

// field is one JSON member of a struct.
type field struct {
	name, goName string
	typ          reflect.Type
	omitEmpty    bool
	asString     bool
	depth        int
	tagged       bool
	index        int // order of appearance
}

// fields lists t's JSON members as encoding/json decides them: embedded
// structs without a name inlined, and of several members with one name
// the shallowest (then the tagged one) kept, none when that is ambiguous.
func (g *Generator) fields(t reflect.Type) ([]field, error) {
	var all []field
	var walk func(t reflect.Type, depth int, seen map[reflect.Type]bool) error
	walk = func(t reflect.Type, depth int, seen map[reflect.Type]bool) error {
		if depth > maxDepth {
			return fmt.Errorf("%s: embedded structs deeper than %d", t, maxDepth)
		}
		if seen[t] {
			return nil
		}
		seen[t] = true
		defer delete(seen, t)
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			ft := sf.Type
			if sf.Anonymous {
				et := ft
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if !sf.IsExported() && et.Kind() != reflect.Struct {
					continue
				}
				if name == "" && et.Kind() == reflect.Struct && !(g.marshals(et) && !g.cfg.Structural[et]) {
					if err := walk(et, depth+1, seen); err != nil {
						return err
					}
					continue
				}
			} else if !sf.IsExported() {
				continue
			}
			f := field{name: name, goName: sf.Name, typ: ft, depth: depth, tagged: name != "", index: len(all)}
			if f.name == "" {
				f.name = sf.Name
			}
			for o := range strings.SplitSeq(opts, ",") {
				switch o {
				case "omitempty", "omitzero":
					f.omitEmpty = true
				case "string":
					switch ft.Kind() {
					case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
						reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
						reflect.Float32, reflect.Float64, reflect.String:
						f.asString = true
					}
				}
			}
			all = append(all, f)
		}
		return nil
	}
	if err := walk(t, 0, map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	byName := map[string][]field{}
	var names []string
	for _, f := range all {
		if _, ok := byName[f.name]; !ok {
			names = append(names, f.name)
		}
		byName[f.name] = append(byName[f.name], f)
	}
	var out []field
	for _, n := range names {
		fs := byName[n]
		best := fs[0]
		for _, f := range fs[1:] {
			if f.depth < best.depth || f.depth == best.depth && f.tagged && !best.tagged {
				best = f
			}
		}
		rivals := 0
		for _, f := range fs {
			if f.depth == best.depth && f.tagged == best.tagged {
				rivals++
			}
		}
		if rivals > 1 {
			continue // ambiguous: encoding/json writes neither
		}
		out = append(out, best)
	}
	// Members in the order encoding/json writes them: by first appearance.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].index < out[j-1].index; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, nil
}

func (g *Generator) fieldExpr(f field) (string, error) {
	if f.asString {
		t := f.typ
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() == reflect.String {
			return "string", nil // a JSON string holding a JSON string
		}
		if f.typ.Kind() == reflect.Pointer && !f.omitEmpty {
			return "string | null", nil
		}
		return "string", nil
	}
	return g.expr(f.typ, !f.omitEmpty)
}

// expr is the TypeScript type of t; nullable says a nil value is written
// (as null) rather than left out.
func (g *Generator) expr(t reflect.Type, nullable bool) (string, error) {
	if e, ok := g.cfg.Exprs[t]; ok {
		return e, nil
	}
	if _, ok := g.cfg.Enums[t]; ok {
		return g.declare(t)
	}
	if t.Kind() == reflect.Pointer && t.Name() == "" {
		// A nil pointer is null whatever it points to: the method set of
		// *T is T's business.
		inner, err := g.expr(t.Elem(), false)
		if err != nil {
			return "", err
		}
		if nullable {
			inner += " | null"
		}
		return inner, nil
	}
	if _, ok := g.cfg.Names[t]; ok && t.Kind() != reflect.Struct {
		return g.declare(t)
	}
	if g.marshals(t) && !g.cfg.Structural[t] {
		return "", errOwnJSON(t)
	}
	return g.kindExpr(t, nullable)
}

func errOwnJSON(t reflect.Type) error {
	return fmt.Errorf("%s writes its own JSON (MarshalJSON or MarshalText): say what it writes in Config.Exprs or Config.Enums, or mark it Config.Structural if it writes its own fields", qualified(t))
}

// elemExpr is the type of a slice's, array's or map's element. A nil
// pointer among them is taken for a bug, not a shape: Result.Calls never
// holds one, and clients should not have to say so at every use.
func (g *Generator) elemExpr(t reflect.Type) (string, error) {
	return g.expr(t, t.Kind() != reflect.Pointer)
}

// kindExpr is the type of t by its kind, t's name and methods aside.
func (g *Generator) kindExpr(t reflect.Type, nullable bool) (string, error) {
	null := func(s string) string {
		if nullable {
			return s + " | null"
		}
		return s
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean", nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return "number", nil
	case reflect.String:
		return "string", nil
	case reflect.Interface:
		return "unknown", nil
	case reflect.Pointer:
		inner, err := g.expr(t.Elem(), false)
		if err != nil {
			return "", err
		}
		return null(inner), nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !g.marshals(t.Elem()) && !g.marshals(reflect.PointerTo(t.Elem())) {
			return null("string"), nil // base64
		}
		elem, err := g.elemExpr(t.Elem())
		if err != nil {
			return "", err
		}
		return null(array(elem)), nil
	case reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "number[]", nil
		}
		elem, err := g.elemExpr(t.Elem())
		if err != nil {
			return "", err
		}
		return array(elem), nil
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		default:
			if !t.Key().Implements(textMarshaler) {
				return "", fmt.Errorf("%s: map key %s is not a string, an integer or a TextMarshaler", t, t.Key())
			}
		}
		elem, err := g.elemExpr(t.Elem())
		if err != nil {
			return "", err
		}
		return null("Record<string, " + elem + ">"), nil
	case reflect.Struct:
		if t.Name() == "" {
			return g.inline(t)
		}
		return g.declare(t)
	}
	return "", fmt.Errorf("%s: encoding/json cannot write a %s", t, t.Kind())
}

// inline writes an anonymous struct in place.
func (g *Generator) inline(t reflect.Type) (string, error) {
	fields, err := g.fields(t)
	if err != nil {
		return "", err
	}
	parts := make([]string, 0, len(fields))
	for _, f := range fields {
		expr, err := g.fieldExpr(f)
		if err != nil {
			return "", err
		}
		key := f.name
		if !identifier.MatchString(key) {
			k, _ := json.Marshal(key)
			key = string(k)
		}
		opt := ""
		if f.omitEmpty {
			opt = "?"
		}
		parts = append(parts, key+opt+": "+expr)
	}
	return "{" + strings.Join(parts, ", ") + "}", nil
}

func array(elem string) string {
	if strings.ContainsAny(elem, " |") {
		return "Array<" + elem + ">"
	}
	return elem + "[]"
}
