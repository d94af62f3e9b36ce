package config

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"iter"
	"runtime"
	"strings"
	"sync"

	"github.com/beevik/etree"
)

// xmlPositions maps elements to their start positions. etree keeps no
// positions, so a byte scan records the start of every element in document
// order, and an element's number in that order finds its position.
type xmlPositions struct {
	file  string
	lines *lineIndex
	start []int64 // byte offset of each element's '<', document order
	// The root as the scan saw it, to split a large file: its name as
	// written, the offset just past its start tag (0 when it has no
	// content), and the numbers (indexes into start) of its children.
	rootName string
	rootEnd  int
	top      []int
}

// scanXML records the offset of every start tag in document order. It runs
// only on a document etree accepted, so a byte scan suffices: it skips
// comments, CDATA, processing instructions, the DOCTYPE (with its internal
// subset) and quoted attribute values, where a '<' or '>' is not markup.
// FuzzScanXML checks it against encoding/xml.
func scanXML(file string, data []byte) *xmlPositions {
	// Every element starts with a '<', so their count bounds the elements.
	xp := &xmlPositions{file: file, lines: newLineIndex(data), start: make([]int64, 0, bytes.Count(data, []byte{'<'}))}
	n := len(data)
	skipPast := func(i int, end string) int {
		j := bytes.Index(data[i:], []byte(end))
		if j < 0 {
			return n
		}
		return i + j + len(end)
	}
	depth := 0 // elements open; right only for a well-formed document
	for i := 0; i < n; {
		j := bytes.IndexByte(data[i:], '<')
		if j < 0 {
			break
		}
		i += j
		switch {
		case bytes.HasPrefix(data[i:], []byte("<!--")):
			i = skipPast(i+4, "-->")
		case bytes.HasPrefix(data[i:], []byte("<![CDATA[")):
			i = skipPast(i+9, "]]>")
		case bytes.HasPrefix(data[i:], []byte("<?")):
			i = skipPast(i+2, "?>")
		case bytes.HasPrefix(data[i:], []byte("<!")):
			i = skipDecl(data, i+2)
		case i+1 < n && data[i+1] == '/':
			i = skipPast(i+2, ">")
			depth--
		default:
			num := len(xp.start)
			xp.start = append(xp.start, int64(i))
			end, empty := skipTag(data, i+1)
			switch {
			case num == 0 && !empty:
				xp.rootName, xp.rootEnd = tagName(data[i+1:end]), end
			case depth == 1 && xp.rootEnd > 0:
				xp.top = append(xp.top, num)
			}
			if !empty {
				depth++
			}
			i = end
		}
	}
	return xp
}

// skipDecl skips a <!DOCTYPE ...> or other declaration the way
// encoding/xml (under etree) reads it: the byte after "<!" is taken as it
// is, whatever it is; then, outside quoted strings, each '<' opens a level
// (or a comment) and each '>' closes one, and a '>' at level 0 ends the
// declaration. Brackets mean nothing to it.
func skipDecl(data []byte, i int) int {
	if i < len(data) {
		i++
	}
	var quote byte
	depth := 0
	for i < len(data) {
		switch c := data[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '>':
			if depth == 0 {
				return i + 1
			}
			depth--
		case c == '"' || c == '\'':
			quote = c
		case c == '<':
			if bytes.HasPrefix(data[i+1:], []byte("!--")) {
				k := bytes.Index(data[i+4:], []byte("-->"))
				if k < 0 {
					return len(data)
				}
				i += 4 + k + 3
				continue
			}
			depth++
		}
		i++
	}
	return i
}

// skipTag skips to the end of a start tag, past quoted attribute values,
// and tells whether the tag closes itself (<a/>).
func skipTag(data []byte, i int) (end int, empty bool) {
	for i < len(data) {
		switch c := data[i]; c {
		case '"', '\'':
			k := bytes.IndexByte(data[i+1:], c)
			if k < 0 {
				return len(data), false
			}
			i += k + 2
		case '>':
			return i + 1, data[i-1] == '/'
		default:
			i++
		}
	}
	return i, false
}

// tagName returns the name at the start of a tag's bytes after '<'.
func tagName(tag []byte) string {
	end := bytes.IndexAny(tag, " \t\r\n/>")
	if end < 0 {
		end = len(tag)
	}
	return string(tag[:end])
}

// syntaxError runs a strict decode to find where data stops being XML; it
// is called only for a file that etree rejected.
func syntaxError(file string, data []byte) Diagnostic {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	for {
		_, err := dec.Token()
		if err == nil {
			continue
		}
		// InputPos is just past the character that failed (or the end
		// of the file, for a document that stops early).
		line, col := dec.InputPos()
		pos := Position{File: file, Line: line, Column: max(col-1, 1)}
		msg := err.Error()
		if errors.Is(err, io.EOF) {
			msg = "the document ends before its root element is closed"
		}
		var se *xml.SyntaxError
		if errors.As(err, &se) {
			msg = se.Msg
		}
		return Diagnostic{Position: pos, Severity: SeverityError, Code: CodeSyntax,
			Message: "XML syntax error: " + msg + "; fix the file: it is ignored until it parses"}
	}
}

// xmlWalker hands out positions to etree elements by their number in
// document order, which the scan recorded. An element's number comes with
// it as a node, so no element-to-position table is built.
type xmlWalker struct{ xp *xmlPositions }

// node is an element with its number in document order (root is 0).
type node struct {
	*etree.Element
	n int
}

func (w *xmlWalker) at(x node) Position {
	if x.n >= len(w.xp.start) {
		return Position{}
	}
	line, col := w.xp.lines.pos(int(w.xp.start[x.n]))
	return Position{w.xp.file, line, col}
}

// children yields x's child elements with their numbers: the first child
// follows its parent, each next one follows its previous sibling's subtree.
func children(x node) iter.Seq[node] {
	return func(yield func(node) bool) {
		n := x.n + 1
		for _, t := range x.Child {
			c, ok := t.(*etree.Element)
			if !ok {
				continue
			}
			if !yield(node{c, n}) {
				return
			}
			n += subtreeSize(c)
		}
	}
}

// child returns x's first child element named tag, as etree's
// SelectElement does.
func child(x node, tag string) (node, bool) {
	for c := range children(x) {
		if c.Tag == tag {
			return c, true
		}
	}
	return node{}, false
}

// subtreeSize counts e and the elements under it.
func subtreeSize(e *etree.Element) int {
	n := 1
	for _, t := range e.Child {
		if c, ok := t.(*etree.Element); ok {
			n += subtreeSize(c)
		}
	}
	return n
}

// xmlFile is a parsed XML file. A large file is read as several documents,
// each a copy of the root holding one run of its children, parsed at the
// same time; parts are those roots, numbered so that their children get
// the numbers they have in the whole file. A small file has one part, the
// root itself.
type xmlFile struct {
	root  node
	parts []node
	w     *xmlWalker
}

// xmlPartSize is the least share of a file worth a parser of its own.
const xmlPartSize = 128 << 10

// xmlParts is how many parts to read a file of size bytes in.
func xmlParts(size int) int {
	return max(1, min(runtime.GOMAXPROCS(0), 4, size/xmlPartSize))
}

// parseXMLDoc parses data with etree, in up to parts parts, and checks its
// syntax. A split falls just before a child of the root, by the scan, and
// each part but the last is closed with the root's end tag. If any part
// fails, the file is parsed whole, so a split can change nothing: a part
// parses only when the split is where the scan said (a '<' inside a
// comment, CDATA, an attribute or a grandchild leaves that part
// unterminated or its end tag mismatched).
func parseXMLDoc(file string, data []byte, p *parsed, parts int) (xmlFile, bool) {
	xp := scanXML(file, data)
	doc := xmlFile{w: &xmlWalker{xp}}
	if cuts := xp.splits(len(data), parts); len(cuts) > 0 {
		if roots, ok := parseParts(data, xp, cuts); ok {
			doc.root = roots[0]
			doc.parts = roots
			return doc, true
		}
	}
	root, err := readXML(bytes.NewReader(data))
	if err != nil {
		p.diags = append(p.diags, syntaxError(file, data))
		return doc, false
	}
	if root == nil {
		p.add(Position{File: file, Line: 1, Column: 1}, SeverityError, CodeBadRoot, "the file has no root element: it must hold a <scriptservice> element")
		return doc, false
	}
	// Positions are numbered from the document's first element, which is root.
	doc.root = node{root, 0}
	doc.parts = []node{doc.root}
	return doc, true
}

func readXML(r io.Reader) (*etree.Element, error) {
	doc := etree.NewDocument()
	doc.ReadSettings.Permissive = false
	if _, err := doc.ReadFrom(r); err != nil {
		return nil, err
	}
	return doc.Root(), nil
}

// splits picks up to parts-1 children of the root to start a part at, the
// first child at or after each equal share of the file.
func (xp *xmlPositions) splits(size, parts int) []int {
	var cuts []int
	j := 1 // a part starts with at least the root's first child
	for k := 1; k < parts; k++ {
		want := int64(size * k / parts)
		for j < len(xp.top) && xp.start[xp.top[j]] < want {
			j++
		}
		if j >= len(xp.top) {
			break
		}
		cuts = append(cuts, xp.top[j])
		j++
	}
	return cuts
}

// parseParts parses data as one document per run of the root's children
// that cuts (element numbers) start, at the same time. Each part's root is
// numbered one before its first child.
func parseParts(data []byte, xp *xmlPositions, cuts []int) ([]node, bool) {
	head := data[:xp.rootEnd] // prolog and the root's start tag
	end := "</" + xp.rootName + ">"
	roots := make([]node, len(cuts)+1)
	errs := make([]error, len(roots))
	var wg sync.WaitGroup
	for k := range roots {
		from := xp.rootEnd
		first := 1
		if k > 0 {
			first = cuts[k-1]
			from = int(xp.start[first])
		}
		r := io.MultiReader(bytes.NewReader(head), bytes.NewReader(data[from:])) // the last part ends as the file does
		if k < len(cuts) {
			r = io.MultiReader(bytes.NewReader(head), bytes.NewReader(data[from:xp.start[cuts[k]]]), strings.NewReader(end))
		}
		wg.Go(func() {
			var root *etree.Element
			root, errs[k] = readXML(r)
			if root == nil && errs[k] == nil {
				errs[k] = errors.New("no root element")
			}
			roots[k] = node{root, first - 1}
		})
	}
	wg.Wait()
	return roots, errors.Join(errs...) == nil
}

// text returns the element's character data, CDATA included, trimmed.
func text(e *etree.Element) string {
	var b strings.Builder
	for _, t := range e.Child {
		if cd, ok := t.(*etree.CharData); ok {
			b.WriteString(cd.Data)
		}
	}
	return strings.TrimSpace(b.String())
}

// parseServiceXML reads a script-service-api.xml or script-handler-api.xml.
func parseServiceXML(file string, data []byte) *parsed {
	return parseServiceXMLParts(file, data, xmlParts(len(data)))
}

// parseServiceXMLParts is parseServiceXML reading the file in up to parts
// parts; each part's elements are read at the same time too, and the
// results joined in document order.
func parseServiceXMLParts(file string, data []byte, parts int) *parsed {
	p := &parsed{file: file}
	doc, ok := parseXMLDoc(file, data, p, parts)
	if !ok {
		return p
	}
	if doc.root.Tag != "scriptservice" {
		p.add(doc.w.at(doc.root), SeverityError, CodeBadRoot, fmt.Sprintf("root element is <%s>; a service file must have <scriptservice> as its root", doc.root.Tag))
		return p
	}
	if len(doc.parts) == 1 {
		p.apis = make([]rawAPI, 0, len(doc.root.Child)/2) // most children are api elements, between whitespace
		serviceElements(p, doc.w, doc.root)
		return p
	}
	// The parts fill one slice of api entries, each from where the
	// previous part's children end, and are then closed up.
	counts := make([]int, len(doc.parts))
	total := 0
	for k, part := range doc.parts {
		for range children(part) {
			counts[k]++
		}
		total += counts[k]
	}
	all := make([]rawAPI, total)
	subs := make([]*parsed, len(doc.parts))
	off := 0
	for k, n := range counts {
		subs[k] = &parsed{file: file, apis: all[off : off : off+n]}
		off += n
	}
	var wg sync.WaitGroup
	for k, part := range doc.parts {
		wg.Go(func() { serviceElements(subs[k], doc.w, part) })
	}
	wg.Wait()
	p.apis = all[:0]
	for _, sub := range subs {
		p.apis = append(p.apis, sub.apis...) // moves down within all
		p.oauths = append(p.oauths, sub.oauths...)
		p.diags = append(p.diags, sub.diags...)
	}
	return p
}

// serviceElements reads the children of a <scriptservice> part.
func serviceElements(p *parsed, w *xmlWalker, part node) {
	for e := range children(part) {
		switch e.Tag {
		case "api":
			p.apis = append(p.apis, xmlAPI(p, w, e))
		case "oAuth":
			p.oauths = append(p.oauths, xmlOAuth(p, w, e))
		default:
			p.unknown(w.at(e), "element %q in <scriptservice>", "<"+e.Tag+">", []string{"<api>", "<oAuth>"})
		}
	}
}

// attrField reads an attribute of an element at pos.
func attrField(e node, pos Position, name string) field {
	a := e.SelectAttr(name)
	if a == nil {
		return field{pos: pos}
	}
	return field{value: strings.TrimSpace(a.Value), set: true, pos: pos}
}

func checkAttrs(p *parsed, e node, pos Position, known []string) {
	for _, a := range e.Attr {
		if a.Space != "" {
			continue // namespace declarations and qualified attributes
		}
		if !contains(known, a.Key) {
			p.unknown(pos, "attribute %q of <"+e.Tag+">", a.Key, known)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func xmlAPI(p *parsed, w *xmlWalker, e node) rawAPI {
	pos := w.at(e)
	checkAttrs(p, e, pos, []string{"serviceId", "url", "description"})
	a := rawAPI{
		serviceID:   attrField(e, pos, "serviceId"),
		url:         attrField(e, pos, "url"),
		description: attrField(e, pos, "description"),
		pos:         pos,
	}
	for c := range children(e) {
		if c.Tag == "authorization" {
			a.auth = xmlAuth(p, w, c)
			continue
		}
		p.unknown(w.at(c), "element %q in <api>", "<"+c.Tag+">", []string{"<authorization>"})
	}
	return a
}

func xmlAuth(p *parsed, w *xmlWalker, e node) *rawAuth {
	pos := w.at(e)
	checkAttrs(p, e, pos, []string{"type"})
	au := &rawAuth{typ: attrField(e, pos, "type"), pos: pos}
	for c := range children(e) {
		f := field{value: text(c.Element), set: true, pos: w.at(c)}
		switch c.Tag {
		case "encodedCredentials":
			au.encodedCredentials = f
		case "id":
			au.id = f
		default:
			p.unknown(w.at(c), "element %q in <authorization>", "<"+c.Tag+">", []string{"<encodedCredentials>", "<id>"})
		}
	}
	return au
}

var oauthAttrs = []string{"id", "description", "url", "grantType", "clientAuthenticationMethod",
	"clientId", "clientSecret", "username", "password"}

func xmlOAuth(p *parsed, w *xmlWalker, e node) rawOAuth {
	pos := w.at(e)
	checkAttrs(p, e, pos, oauthAttrs)
	o := rawOAuth{fields: map[string]field{}, pos: pos}
	for _, n := range oauthAttrs {
		if f := attrField(e, pos, n); f.set {
			o.fields[n] = f
		}
	}
	for c := range children(e) {
		switch c.Tag {
		case "authorization":
			o.auth = xmlAuth(p, w, c)
		case "additionalParams":
			for _, pe := range c.ChildElements() { // names and values only: no positions
				o.params = append(o.params, Param{Name: pe.Tag, Value: NewSecret(text(pe))})
			}
		default:
			p.unknown(w.at(c), "element %q in <oAuth>", "<"+c.Tag+">", []string{"<authorization>", "<additionalParams>"})
		}
	}
	return o
}

// lineIndex converts byte offsets to 1-based line and column.
type lineIndex struct{ starts []int }

func newLineIndex(data []byte) *lineIndex {
	li := &lineIndex{starts: make([]int, 1, 1+bytes.Count(data, []byte{'\n'}))}
	for i, c := range data {
		if c == '\n' {
			li.starts = append(li.starts, i+1)
		}
	}
	return li
}

func (li *lineIndex) pos(off int) (line, col int) {
	lo, hi := 0, len(li.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if li.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1, off - li.starts[lo] + 1
}
