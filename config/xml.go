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
	"sync/atomic"

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

// scanXML records the offset of every start tag in document order, and the
// root and its children. A byte scan suffices because only a document
// etree accepts is ever read by it: it skips comments, CDATA, processing
// instructions, the DOCTYPE (with its internal subset) and quoted
// attribute values, where a '<' or '>' is not markup. It runs before etree
// parses, so on a malformed document what it records means nothing, and
// nothing relies on it: the whole parse fails and its error is reported.
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

// node is an element with its number in document order (root is 0),
// which finds its position in the scan: no element-to-position table is
// built.
type node struct {
	*etree.Element
	n int
}

// at returns where element x starts.
func (xp *xmlPositions) at(x node) Position {
	if x.n >= len(xp.start) {
		return Position{}
	}
	line, col := xp.lines.pos(int(xp.start[x.n]))
	return Position{xp.file, line, col}
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

// childElements counts e's child elements.
func childElements(e *etree.Element) int {
	n := 0
	for _, t := range e.Child {
		if _, ok := t.(*etree.Element); ok {
			n++
		}
	}
	return n
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

// parseXMLDoc parses data whole with etree and checks its syntax; xp is
// data's scan.
func parseXMLDoc(xp *xmlPositions, data []byte, p *parsed) (node, bool) {
	root, err := readXML(bytes.NewReader(data))
	if err != nil {
		p.diags = append(p.diags, syntaxError(xp.file, data))
		return node{}, false
	}
	if root == nil {
		p.add(Position{File: xp.file, Line: 1, Column: 1}, SeverityError, CodeBadRoot, "the file has no root element: it must hold a <scriptservice> element")
		return node{}, false
	}
	// Positions are numbered from the document's first element, which is root.
	return node{root, 0}, true
}

func readXML(r io.Reader) (*etree.Element, error) {
	doc := etree.NewDocument()
	doc.ReadSettings.Permissive = false
	if _, err := doc.ReadFrom(r); err != nil {
		return nil, err
	}
	return doc.Root(), nil
}

// xmlRunSize is about how many bytes of a large file one part holds.
const xmlRunSize = 64 << 10

// xmlRun is one part of a large file: a run of the root's children.
type xmlRun struct {
	from, to int // the children's bytes; to is -1 for the last run, which ends as the file does
	first    int // the number of the run's first child
	count    int // how many children the run holds
}

// runs cuts the root's children into runs of about size bytes, by the
// scan. A file of less than two runs gets none: it is read whole.
func (xp *xmlPositions) runs(size int) []xmlRun {
	var runs []xmlRun
	for j, num := range xp.top {
		off := int(xp.start[num])
		if j > 0 && off-runs[len(runs)-1].from < size {
			runs[len(runs)-1].count++
			continue
		}
		if j == 0 {
			off = xp.rootEnd // the first run keeps what precedes the first child
		} else {
			runs[len(runs)-1].to = off
		}
		runs = append(runs, xmlRun{from: off, to: -1, first: num, count: 1})
	}
	if len(runs) < 2 {
		return nil
	}
	return runs
}

// parseServiceXML reads a script-service-api.xml or script-handler-api.xml.
func parseServiceXML(file string, data []byte) *parsed {
	return parseServiceXMLRuns(file, data, xmlRunSize)
}

// parseServiceXMLRuns is parseServiceXML reading a file of at least two
// runs of size bytes in parts.
func parseServiceXMLRuns(file string, data []byte, size int) *parsed {
	xp := scanXML(file, data)
	if runs := xp.runs(size); runs != nil {
		if p, ok := parseServiceRuns(file, data, xp, runs); ok {
			return p
		}
	}
	p := &parsed{file: file}
	root, ok := parseXMLDoc(xp, data, p)
	if !ok {
		return p
	}
	if root.Tag != "scriptservice" {
		p.add(xp.at(root), SeverityError, CodeBadRoot, fmt.Sprintf("root element is <%s>; a service file must have <scriptservice> as its root", root.Tag))
		return p
	}
	p.apis = make([]rawAPI, 0, len(xp.top)) // most children are api elements
	serviceElements(p, xp, root)
	return p
}

// parseServiceRuns reads a large file in parts, one run of the root's
// children each: the prolog and the root's start tag, the run, and the
// root's end tag make one document for etree. Parts are parsed and read
// on up to GOMAXPROCS goroutines, each part dropped once read, so the
// file's whole tree never exists at once; the results are joined in
// document order. It reports false when a part fails to parse, and the
// caller reads the file whole: a part parses only when its run is really
// a run of the root's children (a '<' inside a comment, CDATA, an
// attribute value or a grandchild leaves it unterminated or its end tag
// mismatched), so reading in parts cannot change a result.
func parseServiceRuns(file string, data []byte, xp *xmlPositions, runs []xmlRun) (*parsed, bool) {
	head := data[:xp.rootEnd] // the prolog and the root's start tag
	end := "</" + xp.rootName + ">"
	// The runs' api entries go straight into one slice, each run from
	// where the previous run's children end (a run holds as many children
	// as the scan counted, or the file is read whole); they are closed up
	// below.
	total := 0
	for _, r := range runs {
		total += r.count
	}
	all := make([]rawAPI, total)
	subs := make([]parsed, len(runs))
	off := 0
	for k, r := range runs {
		subs[k] = parsed{file: file, apis: all[off : off : off+r.count]}
		off += r.count
	}
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(runs)) {
		wg.Go(func() {
			for !failed.Load() {
				k := int(next.Add(1) - 1)
				if k >= len(runs) {
					return
				}
				r := runs[k]
				body := io.MultiReader(bytes.NewReader(head), bytes.NewReader(data[r.from:]))
				if r.to >= 0 {
					body = io.MultiReader(bytes.NewReader(head), bytes.NewReader(data[r.from:r.to]), strings.NewReader(end))
				}
				root, err := readXML(body)
				if err != nil || root == nil || root.Tag != "scriptservice" || childElements(root) != r.count {
					// The whole read reports what is wrong, or reads
					// right what the scan misjudged.
					failed.Store(true)
					return
				}
				serviceElements(&subs[k], xp, node{root, r.first - 1})
			}
		})
	}
	wg.Wait()
	if failed.Load() {
		return nil, false
	}
	p := &parsed{file: file, apis: all[:0]}
	for k := range subs {
		p.apis = append(p.apis, subs[k].apis...) // within all, entries only move down
		p.oauths = append(p.oauths, subs[k].oauths...)
		p.diags = append(p.diags, subs[k].diags...)
	}
	return p, true
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

// serviceElements reads the children of a <scriptservice> part.
func serviceElements(p *parsed, xp *xmlPositions, part node) {
	for e := range children(part) {
		switch e.Tag {
		case "api":
			p.apis = append(p.apis, xmlAPI(p, xp, e))
		case "oAuth":
			p.oauths = append(p.oauths, xmlOAuth(p, xp, e))
		default:
			p.unknown(xp.at(e), "element %q in <scriptservice>", "<"+e.Tag+">", []string{"<api>", "<oAuth>"})
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

func xmlAPI(p *parsed, xp *xmlPositions, e node) rawAPI {
	pos := xp.at(e)
	checkAttrs(p, e, pos, []string{"serviceId", "url", "description"})
	a := rawAPI{
		serviceID:   attrField(e, pos, "serviceId"),
		url:         attrField(e, pos, "url"),
		description: attrField(e, pos, "description"),
		pos:         pos,
	}
	for c := range children(e) {
		if c.Tag == "authorization" {
			a.auth = xmlAuth(p, xp, c)
			continue
		}
		p.unknown(xp.at(c), "element %q in <api>", "<"+c.Tag+">", []string{"<authorization>"})
	}
	return a
}

func xmlAuth(p *parsed, xp *xmlPositions, e node) *rawAuth {
	pos := xp.at(e)
	checkAttrs(p, e, pos, []string{"type"})
	au := &rawAuth{typ: attrField(e, pos, "type"), pos: pos}
	for c := range children(e) {
		f := field{value: text(c.Element), set: true, pos: xp.at(c)}
		switch c.Tag {
		case "encodedCredentials":
			au.encodedCredentials = f
		case "id":
			au.id = f
		default:
			p.unknown(xp.at(c), "element %q in <authorization>", "<"+c.Tag+">", []string{"<encodedCredentials>", "<id>"})
		}
	}
	return au
}

var oauthAttrs = []string{"id", "description", "url", "grantType", "clientAuthenticationMethod",
	"clientId", "clientSecret", "username", "password"}

func xmlOAuth(p *parsed, xp *xmlPositions, e node) rawOAuth {
	pos := xp.at(e)
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
			o.auth = xmlAuth(p, xp, c)
		case "additionalParams":
			for _, pe := range c.ChildElements() { // names and values only: no positions
				o.params = append(o.params, Param{Name: pe.Tag, Value: NewSecret(text(pe))})
			}
		default:
			p.unknown(xp.at(c), "element %q in <oAuth>", "<"+c.Tag+">", []string{"<authorization>", "<additionalParams>"})
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
