package hints

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/restls/restls/config"
)

// maxServiceItems caps the serviceId items of one answer; the answer is
// then marked Incomplete so the editor asks again as the user types.
const maxServiceItems = 100

// Keys of the PATH and TIMEOUTS objects.
const (
	keyPathParams        = "pathParams"
	keyQueryParams       = "queryParams"
	keyConnectionTimeout = "connectionTimeout"
	keyReadTimeout       = "readTimeout"
)

var (
	pathKeys    = []string{keyPathParams, keyQueryParams}
	timeoutKeys = []string{keyConnectionTimeout, keyReadTimeout}
)

// commonHeaders are offered inside HEADER. Authorization is left out on
// purpose: authorization belongs in the service configuration (docs/api.md#authorization).
var commonHeaders = []struct{ name, doc string }{
	{"Accept", "Media types the script accepts; the service must answer `application/json`."},
	{"Accept-Language", "Preferred languages of the answer."},
	{"Cache-Control", "Caching directives."},
	{"Content-Type", "`application/json` (the default) or `multipart/form-data` (PAYLOAD's keys become form fields)."},
	{"If-Match", "Only act when the resource matches this ETag."},
	{"If-None-Match", "Only act when the resource does not match this ETag."},
	{"User-Agent", "The client's name."},
	{"X-Correlation-ID", "Correlates the request across services."},
	{"X-Request-ID", "Identifies the request."},
}

var contentTypes = []struct{ value, doc string }{
	{"application/json", "The default: PAYLOAD is sent as JSON."},
	{"multipart/form-data", "PAYLOAD is sent as a multipart form: each key becomes a form field."},
}

// complete appends the completion items at offset to dst. serviceId items,
// up to 100 a keystroke, are built in dst's spare room; the few items of
// other answers are appended to dst unless it is empty.
func complete(dst []CompletionItem, doc *Document, offset int, reg *config.Registry, opts CompleteOptions) (out Completion) {
	defer recovered()
	if doc == nil {
		return Completion{Items: dst}
	}
	o := &completeArgs{CompleteOptions: opts, dst: dst, doc: doc}
	c, _ := withScan(doc.text, offset, func(s *scanResult) (Completion, bool) {
		switch s.where {
		case inCode:
			return completeCode(s, reg, o)
		case inString:
			return completeString(s, reg, o)
		}
		// In a comment, a regular expression or template text: nothing,
		// and no need to look further back.
		return Completion{}, true
	})
	if !o.appended && len(dst) > 0 {
		c.Items = append(dst, c.Items...)
	}
	return c
}

// completeArgs are the options of one completion and the slice its items
// are appended to.
type completeArgs struct {
	CompleteOptions
	dst      []CompletionItem
	appended bool // the answer's Items already extend dst
	doc      *Document
}

// prefix returns where the identifier the cursor is typing starts (it ends at
// the cursor) and how many ring tokens it uses (0 or 1).
func (s *scanResult) prefix() (start int, used int) {
	if t, ok := s.tok(0); ok && t.kind == tkIdent && t.end == s.offset {
		return t.start, 1
	}
	return s.offset, 0
}

// memberChain returns the names of `a.b.c.` before back-token i (which must
// be the '.'), outermost first, or nil when there is no dot.
func (s *scanResult) memberChain(i int) []string {
	if !s.isPunct(i, '.') {
		return nil
	}
	var chain []string
	for {
		t, ok := s.tok(i + 1)
		if !ok || t.kind != tkIdent {
			return nil
		}
		chain = append(chain, s.tokText(t))
		if !s.isPunct(i+2, '.') {
			break
		}
		i += 2
	}
	for l, r := 0, len(chain)-1; l < r; l, r = l+1, r-1 {
		chain[l], chain[r] = chain[r], chain[l]
	}
	return chain
}

// valueOf says what a variable holds at the cursor: the result of an api
// call ("response"), the exception of one ("exception"), or "".
func (s *scanResult) valueOf(name string) string {
	for i := len(s.stack) - 1; i >= 0; i-- {
		if s.stack[i].catchVar == name {
			return "exception"
		}
	}
	if _, ok := s.vars[name]; ok {
		return "response"
	}
	if assignedFromCall(s.text[:s.from], name) {
		return "response"
	}
	return ""
}

// assignedFromCall reports whether text assigns an api.rest.v1 call to
// name (`name = api.rest.v1.get(`), for variables declared before the
// scanned window. It is textual: good enough for a hint.
func assignedFromCall(text, name string) bool {
	for end := len(text); end > 0; {
		i := strings.LastIndex(text[:end], "api.rest.v1.")
		if i < 0 {
			return false
		}
		end = i
		j := i
		for j > 0 && (text[j-1] == ' ' || text[j-1] == '\t') {
			j--
		}
		if j == 0 || text[j-1] != '=' {
			continue
		}
		j--
		for j > 0 && (text[j-1] == ' ' || text[j-1] == '\t') {
			j--
		}
		if j >= len(name) && text[j-len(name):j] == name && (j == len(name) || !isIdentPart(text[j-len(name)-1])) {
			return true
		}
	}
	return false
}

type field struct{ name, detail, doc string }

var (
	responseFields = []field{
		{"status", "{code, message}", "HTTP status of the answer: `status.code` (int) and `status.message` (string)."},
		{"headers", "Map<String, String>", "Response headers by name: `headers.<name>` or `headers['<name>']`."},
		{"body", "object", "The parsed JSON body, as native script values: `body.<a>.<b>`."},
	}
	exceptionFields = []field{
		{"status", "{code, message}", "HTTP status of the failed answer: `status.code` (int) and `status.message` (string). " +
			"This interface's exception is the one with `status` and `status.code` defined; rethrow anything else."},
		{"body", "string", "The response body as text."},
	}
	statusFields = []field{
		{"code", "int", "HTTP status code."},
		{"message", "string", "HTTP status message."},
	}
)

func fieldItems(fields []field, rng Range) []CompletionItem {
	items := make([]CompletionItem, len(fields))
	for i, f := range fields {
		items[i] = CompletionItem{Label: f.name, Kind: ItemField, Detail: f.detail, Documentation: f.doc,
			InsertText: f.name, Replace: rng}
	}
	return items
}

// settled reports whether the innermost frame's meaning cannot change
// when the scan starts further back: it opened inside the window and is
// not an object whose parent (the call it is an argument of) lies before.
func (s *scanResult) settled() bool {
	switch len(s.stack) {
	case 0:
		return false
	case 1:
		return s.stack[0].open == '('
	}
	return true
}

// completeCode completes in code; ok false means a scan further back
// might know more.
func completeCode(s *scanResult, reg *config.Registry, o *completeArgs) (Completion, bool) {
	start, used := s.prefix()
	rng := Range{start, s.offset}
	typed := s.text[start:s.offset]
	if items, incomplete, ok := flowItems(o.dst, o.doc, s, used, rng, o.Display); ok {
		o.appended = true
		return Completion{Items: items, Incomplete: incomplete}, true
	}
	if items, incomplete, ok := bodyItems(o.dst, s, used, rng, o.Display); ok {
		o.appended = items != nil
		return Completion{Items: items, Incomplete: incomplete}, true
	}
	if chain := s.memberChain(used); chain != nil {
		items := memberItems(s, chain, rng)
		return Completion{Items: items}, items != nil || chain[0] == "api"
	}
	if s.isPunct(used, '.') {
		// api.rest.v1.get(...).
		if t, ok := s.tok(used + 1); ok && t.kind == tkPunct && t.ch == ')' && t.end == s.lastCallEnd {
			return Completion{Items: fieldItems(responseFields, rng)}, true
		}
		return Completion{}, true // a member of something we do not know
	}
	f := s.top()
	if f == nil {
		return Completion{Items: apiItem(typed, rng)}, false
	}
	switch {
	case f.open == '(' && f.call >= 0 && f.arg == argServiceID:
		if !s.prevIs(used, "(") {
			return Completion{}, true // after the serviceId: `get("crm"|`
		}
		// Before the string: insert a quoted id.
		return serviceItems(reg, typed, rng, 0, o), true
	case f.open == '{':
		if items, incomplete := objectItems(s, f, used, rng, 0, reg, o.Display); items != nil {
			return Completion{Items: items, Incomplete: incomplete}, true
		}
	case f.open == '[':
		if items := pathSegmentItems(o.dst, s, used, rng, 0, o.Display); items != nil {
			o.appended = true
			return Completion{Items: items}, true
		}
	}
	return Completion{Items: apiItem(typed, rng)}, s.settled()
}

// prevIs reports whether back-token i is one of the punctuation chars.
func (s *scanResult) prevIs(i int, chars string) bool {
	t, ok := s.tok(i)
	return ok && t.kind == tkPunct && strings.IndexByte(chars, t.ch) >= 0
}

// apiItem offers the api namespace while an identifier is typed.
func apiItem(typed string, rng Range) []CompletionItem {
	if typed == "" || !strings.HasPrefix("api", typed) {
		return nil
	}
	return []CompletionItem{{Label: "api", Kind: ItemModule, Detail: "platform API",
		Documentation: "The platform's script API; `api.rest.v1` calls external REST services.",
		InsertText:    "api", Replace: rng}}
}

func memberItems(s *scanResult, chain []string, rng Range) []CompletionItem {
	switch strings.Join(chain, ".") {
	case "api":
		return []CompletionItem{{Label: "rest", Kind: ItemModule, Detail: "api.rest",
			Documentation: "Script REST client.", InsertText: "rest", Replace: rng}}
	case "api.rest":
		return []CompletionItem{{Label: "v1", Kind: ItemModule, Detail: "api.rest.v1",
			Documentation: "Script REST client, version 1: calls external REST services configured by serviceId " +
				"(answers must be `application/json`).",
			InsertText: "v1", Replace: rng}}
	case "api.rest.v1":
		items := make([]CompletionItem, len(calls))
		for i := range calls {
			c := &calls[i]
			items[i] = CompletionItem{Label: c.Name, Kind: ItemFunction, Detail: c.Signature,
				Documentation: c.Documentation, InsertText: c.snippet(), Snippet: true, Replace: rng,
				SortText: fmt.Sprintf("%d", i)}
		}
		return items
	}
	switch len(chain) {
	case 1:
		switch s.valueOf(chain[0]) {
		case "response":
			return fieldItems(responseFields, rng)
		case "exception":
			return fieldItems(exceptionFields, rng)
		}
	case 2:
		if chain[1] == "status" && s.valueOf(chain[0]) != "" {
			return fieldItems(statusFields, rng)
		}
	}
	return nil
}

// objectParam returns the call and parameter kind ("path", "header",
// "timeouts" ...) whose object literal frame f is, or -1 and "". The
// queryParams object of a PATH is reported as "queryParams".
func (s *scanResult) objectParam(f *frame) (int, string) {
	if f.parentCall >= 0 {
		return f.parentCall, argKind(f.parentCall, f.parentArg)
	}
	if f.key == keyQueryParams && len(s.stack) >= 2 {
		p := &s.stack[len(s.stack)-2]
		if p.open == '{' && p.parentCall >= 0 && argKind(p.parentCall, p.parentArg) == "path" {
			return p.parentCall, keyQueryParams
		}
	}
	return -1, ""
}

// objectItems returns the keys or values to offer inside an object literal
// argument; quote is the quote the cursor is inside, or 0 in code.
//
// back is the ring index of the token before the one being completed: a
// key is offered only after '{' or ',', a value only right after ':'.
// objectItems offers the keys (or values) of the object the cursor is in;
// incomplete marks a capped list of a payload's keys (payloadItems).
func objectItems(s *scanResult, f *frame, back int, rng Range, quote byte, reg *config.Registry, disp Display) (items []CompletionItem, incomplete bool) {
	_, kind := s.objectParam(f)
	if disp.APIs != nil {
		switch {
		case kind == keyQueryParams:
			if items := queryItems(s, f, back, rng, quote, disp); items != nil {
				return items, false
			}
		case !f.afterColon && (kind == "payload" || kind == "" && f.parentCall < 0):
			if items, incomplete := payloadItems(s, back, rng, quote, disp); items != nil {
				return items, incomplete
			}
		case kind == "payload" || kind == "" && f.parentCall < 0:
			if items := payloadValueItems(s, f, back, rng, quote, disp); items != nil {
				return items, false
			}
		}
	}
	if f.afterColon {
		if !s.prevIs(back, ":") {
			return nil, false
		}
		if kind == "header" && strings.EqualFold(f.lastKey, "Content-Type") {
			items := make([]CompletionItem, len(contentTypes))
			for i, ct := range contentTypes {
				items[i] = CompletionItem{Label: ct.value, Kind: ItemValue, Detail: "Content-Type",
					Documentation: ct.doc, InsertText: quoted(ct.value, quote), Replace: rng}
			}
			return items, false
		}
		return nil, false
	}
	if !s.prevIs(back, "{,") {
		return nil, false
	}
	switch kind {
	case "path":
		return []CompletionItem{
			{Label: keyPathParams, Kind: ItemField, Detail: "List<String>",
				Documentation: "Path segments appended to the service address in order, joined with `/`.",
				InsertText:    keyInsert(keyPathParams, quote, "[$1]"), Snippet: quote == 0, Replace: rng},
			{Label: keyQueryParams, Kind: ItemField, Detail: "Map<String, String>",
				Documentation: "Query parameters, added as `?key=value`; values are always strings.",
				InsertText:    keyInsert(keyQueryParams, quote, "{$1}"), Snippet: quote == 0, Replace: rng},
		}, false
	case "timeouts":
		t := timeoutsOf(reg)
		return []CompletionItem{
			timeoutItem(keyConnectionTimeout, t.Connection, quote, rng),
			timeoutItem(keyReadTimeout, t.Read, quote, rng),
		}, false
	case "header":
		items := make([]CompletionItem, len(commonHeaders))
		for i, h := range commonHeaders {
			ins := `"` + h.name + `": `
			if quote != 0 {
				ins = h.name
			}
			items[i] = CompletionItem{Label: h.name, Kind: ItemProperty, Detail: "request header",
				Documentation: h.doc, InsertText: ins, Replace: rng}
		}
		return items, false
	}
	return nil, false
}

func keyInsert(key string, quote byte, value string) string {
	if quote != 0 {
		return key
	}
	return key + ": " + value
}

// timeoutsOf returns the timeouts scripts of reg's kind run under
// (config.Registry.InForce, the runtime's rule).
func timeoutsOf(reg *config.Registry) config.Timeouts { return reg.InForce() }

func timeoutItem(key string, p config.TimeoutPair, quote byte, rng Range) CompletionItem {
	it := CompletionItem{Label: key, Kind: ItemField,
		Detail:        fmt.Sprintf("ms, default %d, maximum %d", p.Default, p.Maximum),
		Documentation: timeoutDoc(key, p),
		InsertText:    key, Replace: rng}
	if quote == 0 {
		it.InsertText = fmt.Sprintf("%s: ${1:%d}", key, p.Default)
		it.Snippet = true
	}
	return it
}

func timeoutDoc(key string, p config.TimeoutPair) string {
	what := "establishing the connection"
	if key == keyReadTimeout {
		what = "reading the response"
	}
	return fmt.Sprintf("Limit in milliseconds for %s. Default %d ms; maximum %d ms (a larger value is clamped to %d).",
		what, p.Default, p.Maximum, p.Maximum)
}

// quoted returns v for insertion: as is inside a string, else in quote.
func quoted(v string, inside byte) string {
	if inside != 0 {
		return escapeQuote(v, inside)
	}
	return `"` + escapeQuote(v, '"') + `"`
}

func escapeQuote(v string, q byte) string {
	if strings.IndexByte(v, q) < 0 && strings.IndexByte(v, '\\') < 0 {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == q || v[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

func completeString(s *scanResult, reg *config.Registry, o *completeArgs) (Completion, bool) {
	f := s.top()
	if f == nil {
		return Completion{}, false
	}
	start := s.strStart + 1
	rng := Range{start, stringEnd(s.text, s.strStart, s.offset)}
	typed := s.text[start:s.offset]
	switch {
	case f.open == '(' && f.call >= 0 && f.arg == argServiceID:
		return serviceItems(reg, typed, rng, s.quote, o), true
	case f.open == '{':
		if items, incomplete := objectItems(s, f, 0, rng, s.quote, reg, o.Display); items != nil {
			return Completion{Items: items, Incomplete: incomplete}, true
		}
	case f.open == '[':
		if items := pathSegmentItems(o.dst, s, 0, rng, s.quote, o.Display); items != nil {
			o.appended = true
			return Completion{Items: items}, true
		}
	}
	return Completion{}, s.settled()
}

// serviceItems offers the serviceIds containing typed (case-insensitive),
// those starting with it first. quote is the quote the cursor is in;
// with 0 the ids are inserted with double quotes.
func serviceItems(reg *config.Registry, typed string, rng Range, quote byte, o *completeArgs) Completion {
	if reg == nil {
		return Completion{}
	}
	type match struct {
		id   string
		rank byte // the sort text's first byte: prefix matches first
	}
	var found [maxServiceItems]match
	n, incomplete := 0, false
	ids := reg.IDs()
	for _, id := range ids {
		if hasPrefixFold(id, typed) {
			if n == maxServiceItems {
				incomplete = true
				break
			}
			found[n] = match{id, '0'}
			n++
		}
	}
	if !incomplete && typed != "" {
		for _, id := range ids {
			if !hasPrefixFold(id, typed) && containsFold(id, typed) {
				if n == maxServiceItems {
					incomplete = true
					break
				}
				found[n] = match{id, '1'}
				n++
			}
		}
	}
	// Sort texts are needed only when prefix and containing matches mix:
	// matches of one kind sort by their label (ids is sorted). They share
	// one allocation: this runs on every keystroke.
	var sorts string
	mixed := n > 0 && found[0].rank != found[n-1].rank
	if mixed {
		size := 0
		for _, m := range found[:n] {
			size += 1 + len(m.id)
		}
		var b strings.Builder
		b.Grow(size)
		for _, m := range found[:n] {
			b.WriteByte(m.rank)
			b.WriteString(m.id)
		}
		sorts = b.String()
	}
	items := slices.Grow(o.dst, n)
	for _, m := range found[:n] {
		var sort string
		if mixed {
			sort = sorts[:1+len(m.id)]
			sorts = sorts[len(sort):]
		}
		items = append(items, serviceItem(reg, m.id, sort, rng, quote, o.LazyDocs, o.Display))
	}
	o.appended = true
	return Completion{Items: items, Incomplete: incomplete}
}

func serviceItem(reg *config.Registry, id, sort string, rng Range, quote byte, lazy bool, disp Display) CompletionItem {
	it := CompletionItem{Label: id, Kind: ItemValue, SortText: sort, Replace: rng}
	if svc, ok := reg.Service(id); ok {
		it.Detail = svc.URL
		if lazy {
			it.LazyDoc = true
		} else {
			it.Documentation = serviceDoc(reg, svc, disp)
		}
	}
	it.InsertText = quoted(id, quote)
	return it
}

// serviceDoc is the Markdown shown for a serviceId: never a credential.
// It is built for up to maxServiceItems items per keystroke, hence no fmt.
func serviceDoc(reg *config.Registry, svc *config.Service, disp Display) string {
	var b strings.Builder
	b.Grow(len(svc.Description) + 2*len(svc.URL) + len(svc.Defined.File) + 96)
	if svc.Description != "" {
		writeText(&b, svc.Description)
		b.WriteString("\n\n")
	}
	b.WriteString("URL: ")
	writeCode(&b, svc.URL)
	if svc.RefersTo != "" {
		b.WriteString(" (")
		writeCode(&b, svc.RawURL)
		b.WriteString(", through serviceId ")
		writeCode(&b, svc.RefersTo)
		b.WriteString(")")
	}
	b.WriteString("\n\nAuthorization: ")
	writeText(&b, reg.AuthSummary(svc))
	if file := disp.path(svc.Defined.File); file != "" {
		b.WriteString("\n\nDefined in ")
		if svc.Defined.Line > 0 {
			writeCode(&b, file, ":", strconv.Itoa(svc.Defined.Line))
		} else {
			writeCode(&b, file)
		}
	}
	return b.String()
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFold is an ASCII case-insensitive strings.HasPrefix.
func hasPrefixFold(s, prefix string) bool {
	if len(prefix) > len(s) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if lowerASCII(s[i]) != lowerASCII(prefix[i]) {
			return false
		}
	}
	return true
}

// containsFold is an ASCII case-insensitive strings.Contains.
func containsFold(s, sub string) bool {
	if sub == "" {
		return true
	}
	first := lowerASCII(sub[0])
	for i := 0; i+len(sub) <= len(s); i++ {
		if lowerASCII(s[i]) == first && hasPrefixFold(s[i+1:], sub[1:]) {
			return true
		}
	}
	return false
}
