package hints

import (
	"fmt"
	"slices"
	"strings"

	"github.com/restls/restls/openapi"
)

// Completion from the services' API descriptions: path segments inside
// pathParams, query parameter keys and values, payload keys and values,
// and the response fields after `r.body.`, of the operation a call
// addresses (openapi.go finds it). The caps on field items are in
// openapi_fields.go.

// pathParamsCall returns, for the innermost frame f being the pathParams array
// of a call's PATH, the offset of the call's '(' and its call index.
func (s *scanResult) pathParamsCall() (open, call int, ok bool) {
	n := len(s.stack)
	if n < 3 {
		return 0, 0, false
	}
	f, p, c := &s.stack[n-1], &s.stack[n-2], &s.stack[n-3]
	if f.open != '[' || f.key != keyPathParams || p.open != '{' || p.parentCall < 0 ||
		argKind(p.parentCall, p.parentArg) != "path" || c.open != '(' || c.call != p.parentCall {
		return 0, 0, false
	}
	return c.pos, c.call, true
}

// pathSegmentItems appends to dst the next path segments inside
// pathParams, first those under which an operation for the call's method
// exists; nil when it is not the place for them. The items'
// text comes from segmentTexts, built once per candidate list of the
// description (openapi.Memo) when the list is shared.
func pathSegmentItems(dst []CompletionItem, s *scanResult, back int, rng Range, quote byte, disp Display) []CompletionItem {
	open, call, ok := s.pathParamsCall()
	if !ok || !s.prevIs(back, "[,") {
		return nil
	}
	ct := readCall(s.text, call, open)
	api, ok := disp.apiOf(ct.serviceID, false)
	if !ok {
		return nil
	}
	cut := rng.Start
	if quote != 0 {
		cut = s.strStart
	}
	elems, _ := elements(s.text[:cut], s.top().pos+1)
	method := calls[call].Method
	next := api.NextShared(method, segsOf(s.text, elems))
	items := slices.Grow(dst, len(next))
	if items == nil {
		items = []CompletionItem{} // no candidates: still the answer
	}
	for _, n := range next {
		t := segmentTextOf(n, method)
		items = append(items, CompletionItem{Label: n.Segment, Kind: ItemValue, Detail: t.detail,
			Documentation: t.doc, InsertText: t.insertText(n.Segment, quote), Snippet: t.snippet,
			Replace: rng, FilterText: t.filter, SortText: t.sort})
		if n.Param != nil && len(n.Param.Enum) > 0 {
			// A parameter with an enum: its values, before the parameter.
			name := strings.Trim(n.Segment, "{}")
			for _, v := range valueItems("string", n.Param.Enum, n.Segment, rng, quote) {
				v.SortText = "0" + name + "\x00" + v.Label
				items = append(items, v)
			}
		}
	}
	return items
}

// segmentText is the text of the completion item of one path-segment
// candidate for the call's method. A candidate the description's index
// keeps (openapi.NextShared) keeps its text in its openapi.Memo: the index
// is immutable, so the text is built once per trie node and method
// instead of once a keystroke (90 items and their documentation after
// ["repos", o, r, in GitHub's description).
type segmentText struct {
	sort, detail, doc, filter string
	// insert is the insert text outside a string, inside "..." and
	// inside '...'; see insertText.
	insert  [3]string
	snippet bool
}

// segmentTextOf returns the text of candidate n for method, from n's Memo
// when it has one.
func segmentTextOf(n *openapi.Next, method string) *segmentText {
	m := n.Memo()
	if m == nil {
		return buildSegmentText(n, method)
	}
	if t, ok := m.Load().(*segmentText); ok {
		return t
	}
	return m.Keep(buildSegmentText(n, method)).(*segmentText)
}

// insertText returns the insert text for the quote the cursor is in.
func (t *segmentText) insertText(seg string, quote byte) string {
	switch quote {
	case 0:
		return t.insert[0]
	case '"':
		return t.insert[1]
	case '\'':
		return t.insert[2]
	}
	if t.snippet {
		return t.insert[1] // the snippet is the same inside any quote
	}
	return quoted(seg, quote)
}

// buildSegmentText builds the item text of candidate n for method.
func buildSegmentText(n *openapi.Next, method string) *segmentText {
	t := &segmentText{sort: "0" + n.Segment}
	ops, total := n.Ops, n.NOps
	if total == 0 {
		ops, total = n.Other, n.NOther
		t.sort = "1" + n.Segment
		t.detail = "no " + method + " below: " + strings.Join(n.OtherMethods, ", ")
	} else {
		t.detail = method
		if n.NOther > 0 {
			t.detail += "; also " + strings.Join(n.OtherMethods, ", ")
		}
	}
	var doc strings.Builder
	doc.Grow(320)
	if n.Param != nil {
		name := strings.Trim(n.Segment, "{}")
		snip := "${1:" + snippetEscape(name) + "}"
		t.insert = [3]string{`"` + snip + `"`, snip, snip}
		t.snippet = true
		t.filter = name
		doc.WriteString("Path parameter `" + name + "`")
		if n.Param.Type != "" {
			doc.WriteString(" (" + n.Param.Type + ")")
		}
		if n.Param.Description != "" {
			doc.WriteString(": ")
			writeText(&doc, n.Param.Description)
		}
		doc.WriteString("\n\n")
	} else {
		t.insert = [3]string{quoted(n.Segment, 0), quoted(n.Segment, '"'), quoted(n.Segment, '\'')}
	}
	for _, o := range ops {
		doc.WriteString("- `" + o.Method + " " + o.Path + "`")
		if o.Summary != "" {
			doc.WriteString(": ")
			writeText(&doc, o.Summary)
		}
		if o.Deprecated {
			doc.WriteString(" (deprecated)")
		}
		doc.WriteString("\n")
	}
	if total > len(ops) {
		fmt.Fprintf(&doc, "- and %d more\n", total-len(ops))
	}
	t.doc = doc.String()
	return t
}

func snippetEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `$`, `\$`, `}`, `\}`)
	return r.Replace(s)
}

// queryItems offers the query parameters of the operation (keys), or the
// enum values of the key being written.
func queryItems(s *scanResult, f *frame, back int, rng Range, quote byte, disp Display) []CompletionItem {
	n := len(s.stack)
	if n < 3 || s.stack[n-3].open != '(' || s.stack[n-3].call < 0 {
		return nil
	}
	c := &s.stack[n-3]
	op, _ := operationOf(s.text, c.call, c.pos, disp, false)
	if op == nil {
		return nil
	}
	if f.afterColon {
		if !s.prevIs(back, ":") {
			return nil
		}
		for _, p := range op.Query {
			if p.Name != f.lastKey {
				continue
			}
			// A query value is a string, whatever the parameter's type.
			return valueItems("string", paramValues(p), p.Name, rng, quote)
		}
		return nil
	}
	if !s.prevIs(back, "{,") {
		return nil
	}
	items := make([]CompletionItem, 0, len(op.Query))
	for _, p := range op.Query {
		it := CompletionItem{Label: p.Name, Kind: ItemField, Replace: rng, Detail: paramDetail(p), SortText: "1" + p.Name}
		if p.Required {
			it.SortText = "0" + p.Name
		}
		it.Documentation = paramDoc(p, op)
		if quote != 0 {
			it.InsertText = p.Name
		} else {
			it.InsertText = jsKey(p.Name) + `: "$1"`
			it.Snippet = true
		}
		items = append(items, it)
	}
	return items
}

// paramValues are the values a parameter's schema lists, or true and
// false for a boolean.
func paramValues(p openapi.Param) []string {
	if len(p.Enum) == 0 && p.Type == "boolean" {
		return []string{"true", "false"}
	}
	return p.Enum
}

func paramDetail(p openapi.Param) string {
	d := p.Type
	if d == "" {
		d = "string"
	}
	if p.Required {
		d += ", required"
	}
	if p.Default != "" {
		d += ", default " + p.Default
	}
	return d
}

func paramDoc(p openapi.Param, op *openapi.Operation) string {
	var b strings.Builder
	if p.Description != "" {
		writeText(&b, p.Description)
		b.WriteString("\n\n")
	}
	writeCodeList(&b, "Values: ", p.Enum)
	if p.Deprecated {
		b.WriteString("Deprecated.\n\n")
	}
	b.WriteString("Query parameter of ")
	writeCode(&b, op.Method+" "+op.Path)
	return b.String()
}

// payloadItems offers the request body's property keys at the payload
// object (or an object nested in it) the cursor is in, at most
// maxFieldItems (incomplete true when some were left out).
func payloadItems(s *scanResult, back int, rng Range, quote byte, disp Display) (items []CompletionItem, incomplete bool) {
	if !s.prevIs(back, "{,") {
		return nil, false
	}
	schema, op := payloadSchemaAt(s, disp)
	if schema == nil {
		return nil, false
	}
	pick, capped := pickProps(schema.Props, s.text[rng.Start:s.offset])
	count := len(schema.Props)
	if capped {
		count = len(pick)
	}
	items = make([]CompletionItem, 0, count)
	for k := range count {
		p := schema.Props[k]
		if capped {
			p = schema.Props[pick[k]]
		}
		it := CompletionItem{Label: p.Name, Kind: ItemField, Replace: rng, Detail: p.Schema.TypeText(), SortText: "1" + p.Name}
		if p.Required {
			it.Detail += ", required"
			it.SortText = "0" + p.Name
		}
		it.Documentation = schemaDoc(p.Schema, op.BodyMedia)
		if quote != 0 {
			it.InsertText = p.Name
		} else {
			it.InsertText = jsKey(p.Name) + ": "
		}
		items = append(items, it)
	}
	return items, capped
}

// payloadValueItems offers the values of the payload property being
// written (after its ':'): its schema's enum, or true and false.
func payloadValueItems(s *scanResult, f *frame, back int, rng Range, quote byte, disp Display) []CompletionItem {
	if !s.prevIs(back, ":") {
		return nil
	}
	obj, _ := payloadSchemaAt(s, disp)
	p := obj.Prop(f.lastKey)
	if p == nil || p.Schema == nil {
		return nil
	}
	return valueItems(p.Schema.Type, p.Schema.Enum, f.lastKey, rng, quote)
}

// valueItems are the items of a schema's enum values (or of a boolean's
// two): strings quoted, numbers and booleans bare; inside a string only
// the values that are strings.
func valueItems(typ string, enum []string, detail string, rng Range, quote byte) []CompletionItem {
	bare := typ == "integer" || typ == "number" || typ == "boolean"
	if len(enum) == 0 && typ == "boolean" {
		enum = []string{"true", "false"}
	}
	if len(enum) == 0 || bare && quote != 0 {
		return nil
	}
	items := make([]CompletionItem, 0, len(enum))
	for _, v := range enum {
		ins := quoted(v, quote)
		if bare {
			ins = v
		}
		items = append(items, CompletionItem{Label: v, Kind: ItemValue, Detail: detail, InsertText: ins, Replace: rng})
	}
	return items
}

// payloadSchemaAt returns the schema of the payload object (or object
// nested in it) the cursor is in, and the call's operation; nil when the
// cursor is not in one or the description does not know it.
func payloadSchemaAt(s *scanResult, disp Display) (*openapi.Schema, *openapi.Operation) {
	n := len(s.stack)
	base := -1
	for i := n - 1; i >= 1; i-- {
		fr := &s.stack[i]
		if fr.open == '{' && fr.parentCall >= 0 {
			if argKind(fr.parentCall, fr.parentArg) == "payload" && s.stack[i-1].open == '(' {
				base = i
			}
			break
		}
		if fr.open != '{' && fr.open != '[' {
			return nil, nil
		}
	}
	if base < 0 {
		return nil, nil
	}
	c := &s.stack[base-1]
	op, _ := operationOf(s.text, c.call, c.pos, disp, false)
	if op == nil || op.Body == nil {
		return nil, nil
	}
	schema := op.Body
	for i := base + 1; i < n && schema != nil; i++ {
		if s.stack[i-1].open == '[' {
			schema = schema.Items
			continue
		}
		p := schema.Prop(s.stack[i].key)
		if p == nil {
			return nil, nil
		}
		schema = p.Schema
	}
	if schema == nil || s.stack[n-1].open != '{' {
		return nil, nil
	}
	return schema, op
}

func schemaDoc(s *openapi.Schema, media string) string {
	var b strings.Builder
	if s != nil && s.Description != "" {
		writeText(&b, s.Description)
		b.WriteString("\n\n")
	}
	if s != nil {
		writeCodeList(&b, "Values: ", s.Enum)
	}
	if media != "" {
		b.WriteString("Sent as ")
		writeCode(&b, media)
	}
	return strings.TrimSpace(b.String())
}

// bodyPath reads `name.body.a[0].b.` back from the '.' at back-token i:
// the variable, and the steps after body ("a", "[]", "b"); ok false for
// anything else.
func (s *scanResult) bodyPath(i int) (name string, steps []string, ok bool) {
	if !s.isPunct(i, '.') {
		return "", nil, false
	}
	var rev []string
	i++
	for len(rev) < 12 {
		t, ok := s.tok(i)
		if !ok {
			return "", nil, false
		}
		switch {
		case t.kind == tkIdent:
			rev = append(rev, s.tokText(t))
			i++
		case t.kind == tkPunct && t.ch == ']' && s.isPunct(i+2, '['):
			rev = append(rev, "[]")
			i += 3
		default:
			return "", nil, false
		}
		if s.isPunct(i, '.') {
			i++
			continue
		}
		if rev[len(rev)-1] == "[]" {
			if p, ok := s.tok(i); ok && (p.kind == tkIdent || p.kind == tkPunct && p.ch == ']') {
				continue // body[0], a[0][1]
			}
		}
		break
	}
	if len(rev) < 2 {
		return "", nil, false
	}
	for l, r := 0, len(rev)-1; l < r; l, r = l+1, r-1 {
		rev[l], rev[r] = rev[r], rev[l]
	}
	if rev[1] != "body" {
		return "", nil, false
	}
	return rev[0], rev[2:], true
}

// assignedCall finds the last `name = api.rest.v1.<call>(` in text and
// returns the call and the offset of its '('.
func assignedCall(text, name string) (call, open int, ok bool) {
	for end := len(text); end > 0; {
		i := strings.LastIndex(text[:end], "api.rest.v1.")
		if i < 0 {
			return 0, 0, false
		}
		end = i
		j := i
		for j > 0 && isBlank(text[j-1]) {
			j--
		}
		if j == 0 || text[j-1] != '=' || j >= 2 && strings.IndexByte("=!<>", text[j-2]) >= 0 {
			continue
		}
		j--
		for j > 0 && isBlank(text[j-1]) {
			j--
		}
		if j < len(name) || text[j-len(name):j] != name || j > len(name) && isIdentPart(text[j-len(name)-1]) {
			continue
		}
		return callAt(text, i)
	}
	return 0, 0, false
}

// bodyItems appends to dst the response schema's properties after
// `r.body.`, at most maxFieldItems (incomplete true when some were left
// out). Their text is built once per schema and answer and kept on the
// index (bodyText), not once a keystroke.
func bodyItems(dst []CompletionItem, s *scanResult, used int, rng Range, disp Display) (items []CompletionItem, incomplete, ok bool) {
	if disp.APIs == nil {
		return nil, false, false
	}
	name, steps, ok := s.bodyPath(used)
	if !ok || s.valueOf(name) != "response" {
		return nil, false, false
	}
	call, open, ok := assignedCall(s.text[:rng.Start], name)
	if !ok {
		return nil, false, false
	}
	op, idx := operationOf(s.text, call, open, disp, true)
	if op == nil || op.Response == nil {
		return nil, false, false
	}
	schema := op.Response
	for _, st := range steps {
		if schema == nil {
			return nil, false, true
		}
		if st == "[]" {
			schema = schema.Items
			continue
		}
		p := schema.Prop(st)
		if p == nil {
			return nil, false, true
		}
		schema = p.Schema
	}
	if schema == nil {
		return nil, false, true
	}
	from := "From the `" + op.Method + " " + op.Path + "` answer in the service's API description."
	if idx.Recorded {
		src := disp.path(idx.Source)
		from = fmt.Sprintf("From recorded answers: `%s:%d` (no API description).", src, op.Line)
	}
	t := bodyTextOf(idx, schema, from)
	pick, capped := pickProps(schema.Props, s.text[rng.Start:s.offset])
	n := len(schema.Props)
	if capped {
		n = len(pick)
	}
	items = slices.Grow(dst, n)
	if items == nil {
		items = []CompletionItem{} // no properties: still the answer
	}
	for k := range n {
		i := k
		if capped {
			i = pick[k]
		}
		items = append(items, CompletionItem{Label: schema.Props[i].Name, Kind: ItemField, Detail: t.detail[i],
			Documentation: t.doc[i], InsertText: schema.Props[i].Name, Replace: rng})
	}
	return items, capped, true
}

// bodyText is the text of the items of one schema's properties after
// `r.body.`, for one answer (from says which), in property order.
type bodyText struct{ detail, doc []string }

type bodyKey struct {
	schema *openapi.Schema
	from   string
}

// bodyTextOf returns the text of schema's property items, kept on idx.
func bodyTextOf(idx *openapi.Index, schema *openapi.Schema, from string) *bodyText {
	m := idx.MemoFor(bodyKey{schema, from})
	if m != nil {
		if t, ok := m.Load().(*bodyText); ok {
			return t
		}
	}
	t := &bodyText{detail: make([]string, len(schema.Props)), doc: make([]string, len(schema.Props))}
	for i, p := range schema.Props {
		doc := schemaDoc(p.Schema, "")
		if doc != "" {
			doc += "\n\n"
		}
		t.detail[i], t.doc[i] = p.Schema.TypeText(), doc+from
	}
	if m == nil {
		return t
	}
	return m.Keep(t).(*bodyText)
}
