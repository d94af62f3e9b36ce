package config

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/beevik/etree"

	"github.com/restls/restls/textpos"
)

// syntaxError runs a strict decode to find where data stops being XML; it
// is called only for a file that etree rejected.
func syntaxError(file string, data []byte) Diagnostic {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	dec.CharsetReader = passThrough // data is decoded already (decodeXML)
	for {
		_, err := dec.Token()
		if err == nil {
			continue
		}
		// InputOffset is just past the character that failed (or the
		// end of the file, for a document that stops early): the
		// position is that character's, or the line's start.
		m := textpos.NewFile(string(data))
		off := textpos.ByteOffset(dec.InputOffset())
		if p := m.RunePos(off); p.Col > 1 {
			off--
		}
		p := m.RunePos(off)
		pos := Position{File: file, Line: p.Line, RuneCol: p.Col}
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
// which finds its position in the scan, so positions cost one offset per
// element (docs/decisions.md, Registry; BenchmarkStageXML).
type node struct {
	*etree.Element
	n int
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
		p.add(Position{File: xp.file, Line: 1, RuneCol: 1}, SeverityError, CodeBadRoot, "the file has no root element: it must hold a <scriptservice> element")
		return node{}, false
	}
	// Positions are numbered from the document's first element, which is root.
	return node{root, 0}, true
}

// passThrough is the CharsetReader for text decodeXML has decoded to UTF-8
// already: the declaration still names the file's encoding.
func passThrough(_ string, r io.Reader) (io.Reader, error) { return r, nil }

func readXML(r io.Reader) (*etree.Element, error) {
	doc := etree.NewDocument()
	doc.ReadSettings.Permissive = false
	doc.ReadSettings.CharsetReader = passThrough // data is decoded already (decodeXML)
	if _, err := doc.ReadFrom(r); err != nil {
		return nil, err
	}
	return doc.Root(), nil
}

// parseServiceXML reads a script-service-api.xml or script-handler-api.xml.
func parseServiceXML(file string, data []byte) *parsed {
	return parseServiceXMLRuns(file, data, xmlRunSize)
}

// parseServiceXMLRuns is parseServiceXML reading a file of at least two
// runs of size bytes in parts.
func parseServiceXMLRuns(file string, data []byte, size int) *parsed {
	data, d, ok := decodeXML(file, data)
	if !ok {
		return &parsed{file: file, diags: []Diagnostic{d}}
	}
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
