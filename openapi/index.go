package openapi

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Index is what the hints need of one description: its operations and
// the shapes of their parameters, bodies and answers. It is immutable once
// built (but for the Memos callers keep on it) and safe for concurrent
// use.
type Index struct {
	// Source is the file or URL the description was read from.
	Source  string
	Title   string
	Version string // the document's "openapi" (or "swagger") version
	// Servers are the absolute urls of the document's servers.
	Servers []string
	// Ops are the operations, sorted by path then method.
	Ops []*Operation
	// Recorded marks an index built from recorded answers (mock
	// fixtures, BuildRecorded) rather than a description: it knows the
	// shapes of answers, not the service's paths.
	Recorded bool
	// Problems are the parts of the description that could not be used
	// (a broken $ref ...): the rest of the index is usable.
	Problems []Problem

	paths *trie
	memos *lru.Cache[any, *Memo] // MemoFor
	valid *validators            // request schemas kept for validation (validate.go)
}

// Problem is a part of a description the index left out.
type Problem struct {
	Line    int
	Message string
}

// Operation is one method on one path template.
type Operation struct {
	Method      string   // upper case: GET, POST ...
	Path        string   // the template: /repos/{owner}/{repo}
	Segments    []string // the template's segments: repos, {owner}, {repo}
	OperationID string
	Summary     string
	Description string
	DocsURL     string // externalDocs.url
	Deprecated  bool
	Line        int // of the operation's key in Source
	PathParams  []Param
	Query       []Param
	// Headers are the header parameters (but Accept, Content-Type and
	// Authorization, which OpenAPI leaves out of them), sorted by name.
	Headers []Param
	// Body is the request body's schema (JSON, else multipart or a form),
	// nil when the operation takes none; BodyMedia is its media type.
	Body         *Schema
	BodyMedia    string
	BodyRequired bool
	// Response is the schema of the first documented 2XX answer.
	Response *Schema
	// Errors are the documented answers of other statuses.
	Errors []Answer

	bodyRaw rawSchema // the JSON body's schema, for BodyValidator
	// Statuses are the documented answers' status keys ("200", "4XX",
	// "default"), in the description's order.
	Statuses []string
	answers  []answerRaw // with BuildAnswers: their JSON schemas
}

// Answer is one documented non-2XX answer.
type Answer struct {
	Status      string
	Description string
	Schema      *Schema
}

// Param is a path or query parameter.
type Param struct {
	Name        string
	Type        string // schema type, e.g. "string", "integer", "array of string"
	Default     string
	Description string
	Required    bool
	Deprecated  bool
	Enum        []string
	// Items says how the value of an array parameter holds its items:
	// ItemsOne when the value is one item (a query parameter exploded,
	// OpenAPI 3's default, Swagger's collectionFormat multi: the value
	// of one key is one item), else the separator ("," for form with
	// explode false, simple and Swagger's csv; " ", "|", "\t"), else
	// ItemsUnknown (a style restls does not read). "" for a parameter
	// that is not an array.
	Items string

	raw rawSchema // the value's schema, for ParamValidator
}

// Values of Param.Items besides a separator.
const (
	ItemsOne     = "one"
	ItemsUnknown = "unknown"
)

// Schema is the shape of a JSON value as far as the hints use it.
type Schema struct {
	Type        string // "object", "array", "string" ...; "" when unknown
	Description string
	Format      string
	Enum        []string
	Ref         string // the component it came from, e.g. "repository"
	Line        int
	// Props are an object's properties, sorted by name.
	Props []Prop
	// Items is an array's element schema.
	Items *Schema
	// Example is the schema's example (or its first examples entry)
	// when it is a scalar, as written.
	Example string
	// Closed marks an object schema with additionalProperties false;
	// Open one whose additionalProperties is true or a schema (a map):
	// reading a property it does not list is then no mistake.
	Closed, Open bool
	// Seen are the values recorded answers held (BuildRecorded), at
	// most maxSeen distinct scalars.
	Seen []string
}

// Prop is one property of an object schema.
type Prop struct {
	Name     string
	Required bool
	Schema   *Schema
}

// Prop returns the property name of s, or nil.
func (s *Schema) Prop(name string) *Prop {
	if s == nil {
		return nil
	}
	i := sort.Search(len(s.Props), func(i int) bool { return s.Props[i].Name >= name })
	if i < len(s.Props) && s.Props[i].Name == name {
		return &s.Props[i]
	}
	return nil
}

// TypeText is a short description of the schema's type, e.g.
// "array of repository".
func (s *Schema) TypeText() string {
	if s == nil {
		return ""
	}
	t := s.Type
	if s.Ref != "" && (t == "object" || t == "") {
		t = s.Ref
	}
	if t == "array" && s.Items != nil {
		return "array of " + s.Items.TypeText()
	}
	if t == "" {
		t = "any"
	}
	if s.Format != "" {
		t += " (" + s.Format + ")"
	}
	return t
}

// ErrNotOpenAPI is returned for a document that is neither OpenAPI 3 nor
// Swagger 2.
var ErrNotOpenAPI = errors.New("not an OpenAPI description (no \"openapi\" or \"swagger\" version)")

// methods are the operation keys of a path item, in the order operations
// are listed.
var methods = [...]string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// maxSchemaDepth bounds how deep a schema is followed inline (a deeper
// one is an object of unknown properties); $ref cycles end at the
// component already being built.
const maxSchemaDepth = 32

// Budgets of the schema walk (docs/decisions.md, "OpenAPI descriptions
// (issue 23)"): what a description of MaxSize bytes can make the builder
// do, whatever its $refs. Past one, the builder leaves the rest out and
// says so in a Problem naming the $ref; it never fails the description.
const (
	// maxSchemaNest bounds the schemas being built at once, inline or
	// through a $ref: the depth of the walk's stack. A chain of $refs
	// (#/c/1 -> #/c/2 -> ...) used to restart the depth at each link.
	maxSchemaNest = 256
	// maxSchemaWork bounds the $refs resolved plus the properties built
	// or merged (allOf, oneOf, anyOf) in one description: what the index
	// may hold, and the builder's time.
	maxSchemaWork = 2 << 20
)

// Build reads a description (JSON or YAML) into an Index. source names it
// in positions and messages.
func Build(source string, data []byte) (*Index, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	return buildIndex(source, root, false)
}

// BuildAnswers is Build that also keeps the schemas of the documented
// answers, for CheckAnswer.
func BuildAnswers(source string, data []byte) (*Index, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	return buildIndex(source, root, true)
}

type builder struct {
	root     *node
	idx      *Index
	swagger  bool
	refs     map[string]*Schema // built components, by $ref
	targets  map[string]*node   // resolved $refs (nil: does not resolve)
	building map[*node]*Schema  // inline schemas being built (cycles)
	problems map[string]bool

	nest  int    // schemas being built now (maxSchemaNest)
	work  int    // $refs resolved, properties built or merged (maxSchemaWork)
	ref   string // the innermost $ref being built, for messages
	spent bool   // the work budget is spent: no more schemas

	answers bool // keep the answers' schemas (BuildAnswers)
}

func newMemos() *lru.Cache[any, *Memo] {
	c, err := lru.New[any, *Memo](MaxMemos)
	if err != nil {
		panic(err) // only for a size under 1
	}
	return c
}

func buildIndex(source string, root *node, answers bool) (*Index, error) {
	if root == nil || root.kind != kObject {
		return nil, ErrNotOpenAPI
	}
	idx := &Index{Source: source, memos: newMemos()}
	b := &builder{root: root, idx: idx, refs: map[string]*Schema{}, targets: map[string]*node{},
		building: map[*node]*Schema{}, problems: map[string]bool{}, answers: answers}
	switch {
	case root.get("openapi") != nil:
		idx.Version = root.get("openapi").scalar()
	case root.get("swagger") != nil:
		idx.Version = root.get("swagger").scalar()
		b.swagger = true
	default:
		return nil, ErrNotOpenAPI
	}
	if info := root.get("info"); info != nil {
		idx.Title = info.text("title")
	}
	b.servers()
	paths := root.get("paths")
	if paths != nil && paths.kind != kObject {
		return nil, lineErr(paths.line, "paths must be an object")
	}
	if paths != nil {
		for i, p := range paths.keys {
			b.pathItem(p, paths.vals[i], 0)
		}
	}
	sort.SliceStable(idx.Ops, func(i, j int) bool {
		if idx.Ops[i].Path != idx.Ops[j].Path {
			return idx.Ops[i].Path < idx.Ops[j].Path
		}
		return methodRank(idx.Ops[i].Method) < methodRank(idx.Ops[j].Method)
	})
	idx.paths = buildTrie(idx.Ops)
	b.reachRefs(requestRoots(idx.Ops, answers))
	return idx, nil
}

// requestRoots are the schemas of the operations' request parts.
func requestRoots(ops []*Operation, answers bool) []*node {
	var roots []*node
	add := func(r rawSchema) {
		if r.n != nil {
			roots = append(roots, r.n)
		}
	}
	for _, op := range ops {
		add(op.bodyRaw)
		if answers {
			for _, a := range op.answers {
				add(a.raw)
			}
		}
		for _, list := range [][]Param{op.PathParams, op.Query, op.Headers} {
			for _, p := range list {
				add(p.raw)
			}
		}
	}
	return roots
}

func methodRank(m string) int {
	for i, x := range methods {
		if strings.EqualFold(x, m) {
			return i
		}
	}
	return len(methods)
}

func (b *builder) problem(line int32, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if b.problems[msg] || len(b.idx.Problems) >= 100 {
		return
	}
	b.problems[msg] = true
	b.idx.Problems = append(b.idx.Problems, Problem{Line: int(line), Message: msg})
}

func (b *builder) servers() {
	if b.swagger {
		host := b.root.text("host")
		if host == "" {
			return
		}
		schemes := []string{"https"}
		if s := b.root.get("schemes"); s != nil && s.kind == kArray && len(s.vals) > 0 {
			schemes = schemes[:0]
			for _, v := range s.vals {
				schemes = append(schemes, v.scalar())
			}
		}
		for _, sc := range schemes {
			b.idx.Servers = append(b.idx.Servers, sc+"://"+host+strings.TrimSuffix(b.root.text("basePath"), "/"))
		}
		return
	}
	s := b.root.get("servers")
	if s == nil || s.kind != kArray {
		return
	}
	for _, v := range s.vals {
		u := v.text("url")
		if vars := v.get("variables"); vars != nil {
			for i, k := range vars.keys {
				u = strings.ReplaceAll(u, "{"+k+"}", vars.vals[i].text("default"))
			}
		}
		if u != "" {
			b.idx.Servers = append(b.idx.Servers, strings.TrimSuffix(u, "/"))
		}
	}
}

// deref follows a $ref to a node of this document, bounded.
func (b *builder) deref(n *node) *node {
	for i := 0; n != nil && i < 16; i++ {
		ref := n.text("$ref")
		if ref == "" {
			return n
		}
		t := b.resolve(ref, n.line)
		if t == nil {
			return nil
		}
		n = t
	}
	if n != nil && n.text("$ref") != "" {
		b.problem(n.line, "$ref chain too long")
		return nil
	}
	return n
}

// resolve returns the node a $ref (at line) points to, or nil (a
// Problem says why). Each $ref is resolved once and counted against the
// work budget.
func (b *builder) resolve(ref string, line int32) *node {
	t, ok := b.targets[ref]
	if !ok {
		if !b.charge(1, line) {
			return nil
		}
		t = b.pointer(ref)
		b.targets[ref] = t
	}
	if t == nil {
		b.problem(line, "$ref %q does not resolve within the description", ref)
	}
	return t
}

// charge counts n units of work against maxSchemaWork, and reports
// whether the budget allows them; the first time it does not, a Problem
// says where the walk stopped.
func (b *builder) charge(n int, line int32) bool {
	if b.spent {
		return false
	}
	b.work += n
	if b.work <= maxSchemaWork {
		return true
	}
	b.spent = true
	where := ""
	if b.ref != "" {
		where = fmt.Sprintf(" (building $ref %q)", b.ref)
	}
	b.problem(line, "the schemas are too large to index: more than %d properties and $refs%s; the rest of the schemas are left out", maxSchemaWork, where)
	return false
}

// pointer resolves a local JSON pointer ("#/components/schemas/x").
func (b *builder) pointer(ref string) *node {
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	n := b.root
	for _, part := range strings.Split(p, "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		if n == nil {
			return nil
		}
		if n.kind == kArray {
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(n.vals) {
				return nil
			}
			n = n.vals[i]
			continue
		}
		n = n.get(part)
	}
	return n
}

func (b *builder) pathItem(path string, item *node, depth int) {
	item = b.deref(item)
	if item == nil || item.kind != kObject {
		return
	}
	common := item.get("parameters")
	for _, m := range methods {
		opn := item.get(m)
		if opn == nil || opn.kind != kObject {
			continue
		}
		b.operation(path, strings.ToUpper(m), opn, common)
	}
}

func splitPath(path string) []string {
	var segs []string
	for _, s := range strings.Split(path, "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	return segs
}

func (b *builder) operation(path, method string, n *node, common *node) {
	op := &Operation{
		Method:      method,
		Path:        path,
		Segments:    splitPath(path),
		OperationID: n.text("operationId"),
		Summary:     n.text("summary"),
		Description: n.text("description"),
		Deprecated:  n.flag("deprecated"),
		Line:        int(n.line),
	}
	if d := n.get("externalDocs"); d != nil {
		op.DocsURL = d.text("url")
	}
	seen := map[string]bool{}
	form := false // formData parameters added: sort them once, after
	for _, list := range []*node{n.get("parameters"), common} {
		if list == nil || list.kind != kArray {
			continue
		}
		for _, pn := range list.vals {
			pn = b.deref(pn)
			if pn == nil {
				continue
			}
			name, in := pn.text("name"), pn.text("in")
			if name == "" || seen[in+"\x00"+name] {
				continue
			}
			seen[in+"\x00"+name] = true
			switch in {
			case "path":
				op.PathParams = append(op.PathParams, b.param(pn))
			case "query":
				op.Query = append(op.Query, b.param(pn))
			case "header":
				switch strings.ToLower(name) {
				case "accept", "content-type", "authorization":
				default:
					op.Headers = append(op.Headers, b.param(pn))
				}
			case "body":
				if b.swagger {
					op.Body = b.schema(pn.get("schema"), 0)
					op.BodyMedia = "application/json"
					op.BodyRequired = pn.flag("required")
					op.bodyRaw = rawSchema{n: pn.get("schema")}
				}
			case "formData":
				if b.swagger {
					if op.Body == nil || op.BodyMedia != "multipart/form-data" {
						op.Body = &Schema{Type: "object"}
						op.BodyMedia = "multipart/form-data"
					}
					p := b.param(pn)
					op.Body.Props = append(op.Body.Props, Prop{Name: p.Name, Required: p.Required,
						Schema: &Schema{Type: p.Type, Description: p.Description, Enum: p.Enum}})
					form = true
				}
			}
		}
	}
	if form && op.BodyMedia == "multipart/form-data" {
		sortProps(op.Body.Props)
	}
	sort.SliceStable(op.Query, func(i, j int) bool { return op.Query[i].Name < op.Query[j].Name })
	sort.SliceStable(op.Headers, func(i, j int) bool { return op.Headers[i].Name < op.Headers[j].Name })
	if rb := b.deref(n.get("requestBody")); rb != nil {
		op.BodyRequired = rb.flag("required")
		op.Body, op.BodyMedia = b.content(rb.get("content"))
		if strings.Contains(strings.ToLower(op.BodyMedia), "json") {
			if c := rb.get("content"); c != nil {
				op.bodyRaw = rawSchema{n: c.get(op.BodyMedia).get("schema")}
			}
		}
	}
	if rs := n.get("responses"); rs != nil && rs.kind == kObject {
		for i, status := range rs.keys {
			r := b.deref(rs.vals[i])
			if r == nil {
				continue
			}
			var s *Schema
			var media string
			if b.swagger {
				s = b.schema(r.get("schema"), 0)
				media = "application/json"
			} else {
				s, media = b.content(r.get("content"))
			}
			op.Statuses = append(op.Statuses, status)
			if b.answers {
				a := answerRaw{status: status}
				if strings.Contains(strings.ToLower(media), "json") {
					if b.swagger {
						a.raw = rawSchema{n: r.get("schema")}
						a.example = r.get("examples").get(media)
					} else {
						mt := r.get("content").get(media)
						a.raw = rawSchema{n: mt.get("schema")}
						a.example = b.mediaExample(mt)
					}
				}
				op.answers = append(op.answers, a)
			}
			if strings.HasPrefix(status, "2") {
				if op.Response == nil {
					op.Response = s
				}
				continue
			}
			op.Errors = append(op.Errors, Answer{Status: status, Description: r.text("description"), Schema: s})
		}
	}
	b.idx.Ops = append(b.idx.Ops, op)
}

// content picks the schema of a content map: JSON first, then multipart
// and forms, then whatever comes first.
func (b *builder) content(c *node) (*Schema, string) {
	if c == nil || c.kind != kObject || len(c.keys) == 0 {
		return nil, ""
	}
	pick := -1
	for _, want := range []string{"json", "multipart/form-data", "application/x-www-form-urlencoded"} {
		for i, k := range c.keys {
			if strings.Contains(strings.ToLower(k), want) {
				pick = i
				break
			}
		}
		if pick >= 0 {
			break
		}
	}
	if pick < 0 {
		pick = 0
	}
	return b.schema(c.vals[pick].get("schema"), 0), c.keys[pick]
}

func (b *builder) param(pn *node) Param {
	p := Param{Name: pn.text("name"), Description: pn.text("description"), Required: pn.flag("required"),
		Deprecated: pn.flag("deprecated")}
	sn := pn
	p.raw = rawSchema{n: pn, param: true}
	if !b.swagger || pn.get("schema") != nil {
		p.raw = rawSchema{n: pn.get("schema")}
		sn = b.deref(pn.get("schema"))
	}
	if sn != nil {
		// Parameters are flat: no need to go deep. A schema that is not an
		// object (a broken description) has no type to show.
		if s := b.schema(sn, maxSchemaDepth-2); s != nil {
			p.Type = s.TypeText()
			p.Enum = s.Enum
			if s.Type == "array" {
				p.Items = b.itemsIn(pn)
			}
		}
		if d := sn.get("default"); d != nil {
			p.Default = d.scalar()
		}
	}
	return p
}

// itemsIn says how the value of array parameter pn holds its items
// (Param.Items): Swagger 2's collectionFormat, OpenAPI 3's style and
// explode with their defaults for the parameter's place.
func (b *builder) itemsIn(pn *node) string {
	in := pn.text("in")
	if b.swagger {
		switch pn.text("collectionFormat") {
		case "", "csv":
			return ","
		case "ssv":
			return " "
		case "tsv":
			return "\t"
		case "pipes":
			return "|"
		case "multi":
			if in == "query" {
				return ItemsOne
			}
		}
		return ItemsUnknown
	}
	style := pn.text("style")
	if style == "" {
		style = "simple"
		if in == "query" {
			style = "form"
		}
	}
	explode := style == "form"
	if e := pn.get("explode"); e != nil {
		explode = e.scalar() == "true"
	}
	switch {
	case style == "simple" && in != "query":
		return "," // explode or not: path and header items are joined by commas
	case style == "form" && in == "query" && explode:
		return ItemsOne
	case style == "form" && in == "query":
		return ","
	case style == "spaceDelimited" && in == "query" && !explode:
		return " "
	case style == "pipeDelimited" && in == "query" && !explode:
		return "|"
	}
	return ItemsUnknown
}

// schema builds the Schema of n; components reached through $ref are
// built once and shared, so cycles end at the one being built. The walk
// is bounded by maxSchemaNest and maxSchemaWork across $refs.
func (b *builder) schema(n *node, depth int) *Schema {
	if n == nil || n.kind != kObject || b.spent {
		return nil
	}
	if b.nest >= maxSchemaNest {
		ref := n.text("$ref")
		if ref == "" {
			ref = b.ref
		}
		b.problem(n.line, "$ref %q: schemas nested deeper than %d (a chain of $refs?); what is deeper is left out", ref, maxSchemaNest)
		return nil
	}
	b.nest++
	defer func() { b.nest-- }()
	if ref := n.text("$ref"); ref != "" {
		if s, ok := b.refs[ref]; ok {
			return s
		}
		t := b.resolve(ref, n.line)
		if t == nil {
			return nil
		}
		s := &Schema{Ref: ref[strings.LastIndexByte(ref, '/')+1:], Line: int(t.line)}
		b.refs[ref] = s
		outer := b.ref
		b.ref = ref
		built := b.schema(t, 0)
		b.ref = outer
		if built != nil {
			name, line := s.Ref, s.Line
			*s = *built
			s.Ref, s.Line = name, line
		}
		return s
	}
	if depth > maxSchemaDepth {
		return &Schema{Type: "object", Line: int(n.line)}
	}
	if s, ok := b.building[n]; ok {
		return s
	}
	s := &Schema{Description: n.text("description"), Format: n.text("format"), Line: int(n.line)}
	b.building[n] = s
	defer delete(b.building, n)
	switch t := n.get("type"); {
	case t == nil:
	case t.kind == kString:
		s.Type = t.str
	case t.kind == kArray: // 3.1: ["string", "null"]
		for _, v := range t.vals {
			if v.scalar() != "null" && v.scalar() != "" {
				s.Type = v.scalar()
				break
			}
		}
	}
	if ex := n.get("example"); ex != nil && ex.kind != kObject && ex.kind != kArray {
		s.Example = ex.scalar()
	} else if ex := n.get("examples"); ex != nil && ex.kind == kArray && len(ex.vals) > 0 && ex.vals[0].kind != kObject && ex.vals[0].kind != kArray {
		s.Example = ex.vals[0].scalar()
	}
	if ap := n.get("additionalProperties"); ap != nil {
		if ap.kind == kBool || ap.kind == kString {
			s.Closed = ap.scalar() == "false"
			s.Open = ap.scalar() == "true"
		} else {
			s.Open = ap.kind == kObject
		}
	}
	if e := n.get("enum"); e != nil && e.kind == kArray {
		for _, v := range e.vals {
			if v.kind != kObject && v.kind != kArray {
				s.Enum = append(s.Enum, v.scalar())
			}
		}
	}
	if ps := n.get("properties"); ps != nil && ps.kind == kObject {
		var required map[string]bool
		if r := n.get("required"); r != nil && r.kind == kArray {
			required = make(map[string]bool, len(r.vals))
			for _, v := range r.vals {
				required[v.scalar()] = true
			}
		}
		if !b.charge(len(ps.keys), ps.line) {
			return s
		}
		if len(ps.keys) > 0 {
			s.Props = make([]Prop, 0, len(ps.keys))
		}
		for i, name := range ps.keys {
			s.Props = append(s.Props, Prop{Name: name, Required: required[name], Schema: b.schema(ps.vals[i], depth+1)})
		}
		if s.Type == "" {
			s.Type = "object"
		}
	}
	if it := n.get("items"); it != nil {
		s.Items = b.schema(it, depth+1)
		if s.Type == "" {
			s.Type = "array"
		}
	}
	// allOf merges; oneOf and anyOf offer the properties of every choice.
	var at map[string]int
	for _, key := range []string{"allOf", "oneOf", "anyOf"} {
		list := n.get(key)
		if list == nil || list.kind != kArray {
			continue
		}
		for _, part := range list.vals {
			ps := b.schema(part, depth+1)
			if ps == nil || !b.charge(len(ps.Props), part.line) {
				continue
			}
			at = s.merge(ps, key == "allOf", at)
		}
	}
	sortProps(s.Props)
	return s
}

// merge adds the properties of o to s (o may still be being built: a
// cycle through allOf merges what is there). at indexes s.Props by name:
// nil while s has few, made here when it has more, and returned for the
// caller's next merge into s (until it sorts s.Props). With a search of
// the list instead, two allOf parts of 20,000 properties took seconds.
func (s *Schema) merge(o *Schema, all bool, at map[string]int) map[string]int {
	if s.Type == "" {
		s.Type = o.Type
	}
	if s.Items == nil {
		s.Items = o.Items
	}
	if s.Description == "" {
		s.Description = o.Description
	}
	if s.Ref == "" && all && len(o.Props) > 0 {
		s.Ref = o.Ref
	}
	if at == nil && len(s.Props)+len(o.Props) > 16 {
		at = make(map[string]int, len(s.Props)+len(o.Props))
		for i, p := range s.Props {
			if _, dup := at[p.Name]; !dup {
				at[p.Name] = i
			}
		}
	}
	for _, p := range o.Props {
		if !all {
			p.Required = false
		}
		i := -1
		if at != nil {
			if j, ok := at[p.Name]; ok {
				i = j
			}
		} else {
			for j := range s.Props {
				if s.Props[j].Name == p.Name {
					i = j
					break
				}
			}
		}
		if i >= 0 {
			s.Props[i].Required = s.Props[i].Required || p.Required
			continue
		}
		if at != nil {
			at[p.Name] = len(s.Props)
		}
		s.Props = append(s.Props, p)
	}
	return at
}

func sortProps(ps []Prop) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
}
