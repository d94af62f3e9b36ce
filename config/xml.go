package config

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/beevik/etree"
)

// xmlPositions maps elements to their start positions. etree keeps no
// positions, so a first pass with encoding/xml records the start of every
// element in document order; etree's tree is walked in the same order.
type xmlPositions struct {
	file  string
	lines *lineIndex
	start []int64 // byte offset of each element's '<', document order
}

// scanXML records the offset of every start tag in document order. It runs
// only on a document etree accepted, so a byte scan suffices: it skips
// comments, CDATA, processing instructions, the DOCTYPE (with its internal
// subset) and quoted attribute values, where a '<' or '>' is not markup.
// FuzzScanXML checks it against encoding/xml.
func scanXML(file string, data []byte) *xmlPositions {
	xp := &xmlPositions{file: file, lines: newLineIndex(data)}
	n := len(data)
	skipPast := func(i int, end string) int {
		j := bytes.Index(data[i:], []byte(end))
		if j < 0 {
			return n
		}
		return i + j + len(end)
	}
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
		default:
			xp.start = append(xp.start, int64(i))
			i = skipTag(data, i+1)
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

// skipTag skips to the end of a start tag, past quoted attribute values.
func skipTag(data []byte, i int) int {
	for i < len(data) {
		switch c := data[i]; c {
		case '"', '\'':
			k := bytes.IndexByte(data[i+1:], c)
			if k < 0 {
				return len(data)
			}
			i += k + 2
		case '>':
			return i + 1
		default:
			i++
		}
	}
	return i
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

// xmlWalker hands out positions to etree elements in document order.
type xmlWalker struct {
	pos map[*etree.Element]Position
}

func newXMLWalker(root *etree.Element, xp *xmlPositions) *xmlWalker {
	w := &xmlWalker{pos: make(map[*etree.Element]Position, len(xp.start))}
	i := 0
	var walk func(e *etree.Element)
	walk = func(e *etree.Element) {
		if i < len(xp.start) {
			line, col := xp.lines.pos(int(xp.start[i]))
			w.pos[e] = Position{xp.file, line, col}
		}
		i++
		for _, c := range e.ChildElements() {
			walk(c)
		}
	}
	walk(root)
	return w
}

func (w *xmlWalker) at(e *etree.Element) Position { return w.pos[e] }

// parseXMLDoc parses data with etree after checking its syntax.
func parseXMLDoc(file string, data []byte, p *parsed) (*etree.Element, *xmlWalker) {
	doc := etree.NewDocument()
	doc.ReadSettings.Permissive = false
	if err := doc.ReadFromBytes(data); err != nil {
		p.diags = append(p.diags, syntaxError(file, data))
		return nil, nil
	}
	xp := scanXML(file, data)
	root := doc.Root()
	if root == nil {
		p.add(Position{File: file, Line: 1, Column: 1}, SeverityError, CodeBadRoot, "the file has no root element: it must hold a <scriptservice> element")
		return nil, nil
	}
	// Positions are numbered from the document's first element, which is root.
	return root, newXMLWalker(root, xp)
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
	p := &parsed{file: file}
	root, w := parseXMLDoc(file, data, p)
	if root == nil {
		return p
	}
	if root.Tag != "scriptservice" {
		p.add(w.at(root), SeverityError, CodeBadRoot, fmt.Sprintf("root element is <%s>; a service file must have <scriptservice> as its root", root.Tag))
		return p
	}
	children := root.ChildElements()
	p.apis = make([]rawAPI, 0, len(children)) // most children are api elements
	for _, e := range children {
		switch e.Tag {
		case "api":
			p.apis = append(p.apis, xmlAPI(p, w, e))
		case "oAuth":
			p.oauths = append(p.oauths, xmlOAuth(p, w, e))
		default:
			p.unknown(w.at(e), "element %q in <scriptservice>", "<"+e.Tag+">", []string{"<api>", "<oAuth>"})
		}
	}
	return p
}

func attrField(w *xmlWalker, e *etree.Element, name string) field {
	a := e.SelectAttr(name)
	if a == nil {
		return field{pos: w.at(e)}
	}
	return field{value: strings.TrimSpace(a.Value), set: true, pos: w.at(e)}
}

func checkAttrs(p *parsed, w *xmlWalker, e *etree.Element, known []string) {
	for _, a := range e.Attr {
		if a.Space != "" {
			continue // namespace declarations and qualified attributes
		}
		if !contains(known, a.Key) {
			p.unknown(w.at(e), "attribute %q of <"+e.Tag+">", a.Key, known)
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

func xmlAPI(p *parsed, w *xmlWalker, e *etree.Element) rawAPI {
	checkAttrs(p, w, e, []string{"serviceId", "url", "description"})
	a := rawAPI{
		serviceID:   attrField(w, e, "serviceId"),
		url:         attrField(w, e, "url"),
		description: attrField(w, e, "description"),
		pos:         w.at(e),
	}
	for _, c := range e.ChildElements() {
		if c.Tag == "authorization" {
			a.auth = xmlAuth(p, w, c)
			continue
		}
		p.unknown(w.at(c), "element %q in <api>", "<"+c.Tag+">", []string{"<authorization>"})
	}
	return a
}

func xmlAuth(p *parsed, w *xmlWalker, e *etree.Element) *rawAuth {
	checkAttrs(p, w, e, []string{"type"})
	au := &rawAuth{typ: attrField(w, e, "type"), pos: w.at(e)}
	for _, c := range e.ChildElements() {
		f := field{value: text(c), set: true, pos: w.at(c)}
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

func xmlOAuth(p *parsed, w *xmlWalker, e *etree.Element) rawOAuth {
	checkAttrs(p, w, e, oauthAttrs)
	o := rawOAuth{fields: map[string]field{}, pos: w.at(e)}
	for _, n := range oauthAttrs {
		if f := attrField(w, e, n); f.set {
			o.fields[n] = f
		}
	}
	for _, c := range e.ChildElements() {
		switch c.Tag {
		case "authorization":
			o.auth = xmlAuth(p, w, c)
		case "additionalParams":
			for _, pe := range c.ChildElements() {
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
	li := &lineIndex{starts: []int{0}}
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
