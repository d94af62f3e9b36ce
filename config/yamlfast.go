package config

import (
	"bytes"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v4"
)

// fastYAMLItems parses the plain block style that configuration files are
// written in (block mappings and sequences, single-line plain and quoted
// scalars, comments, one document) into the node tree the YAML library
// builds, several times faster: the library tokenizes every character
// through a general state machine, and on a 10,000-service configuration
// it was most of the load time.
//
// It is a fast path, never a second parser: on anything outside that
// subset (flow collections, anchors, tags, block or multi-line scalars,
// escapes, several documents, tabs, duplicate keys, anything the library
// would reject) it returns ok false and the caller uses the library,
// which also reports the errors. FuzzFastYAML checks, for every input the
// fast path accepts, that the tree equals the library's in everything
// the loader reads: kind, value, whether the value is null, line, column
// and children. Tags are "!!null" or "!!str"; the loader never looks at
// other tags.
//
// fastYAMLItems hands each item of the api and oAuth lists
// (the sequences yamlDoc reads as scriptservice.api and
// scriptservice.oAuth) to item as soon as it is parsed, instead of
// keeping it in its list: those lists stay empty in the tree, and only
// one item's nodes exist at a time. A node takes about 160 bytes for a
// few bytes of text, so a whole tree is many times the size of its file
// (docs/decisions.md, Registry; BenchmarkLoadLargeYAML). When it
// returns false, item may have been called for some items: the caller
// drops what it made of them.
func fastYAMLItems(data []byte, item func(list string, n *yaml.Node)) (*yaml.Node, bool) {
	p := fastParser{item: item, next: roleRoot}
	if !p.split(data) || len(p.lines) == 0 {
		return nil, false
	}
	root, ok := p.block(p.lines[0].indent)
	if !ok || p.i != len(p.lines) {
		return nil, false
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: root.Line, Column: root.Column, Content: []*yaml.Node{root}}, true
}

// fastLine is a line with content: blank and comment-only lines are
// dropped when splitting.
type fastLine struct {
	text   []byte
	num    int // 1-based
	indent int // leading spaces
}

type fastParser struct {
	lines []fastLine
	i     int // current line
	depth int
	item  func(list string, n *yaml.Node)
	// next is the role of the block about to be parsed: the document's
	// root, the scriptservice mapping, or a list yamlDoc reads (its name).
	next string
}

// Roles of blocks besides the list names.
const (
	roleRoot          = "root"
	roleScriptservice = "scriptservice"
)

// take returns the role of the block starting now and clears it.
func (p *fastParser) take() string {
	r := p.next
	p.next = ""
	return r
}

// roleOf is the role of the value of key in a mapping of role parent,
// as yamlDoc and yamlScriptservice read it.
func roleOf(parent, key string) string {
	switch {
	case parent == roleRoot && key == "scriptservice":
		return roleScriptservice
	case parent == roleRoot && (key == "scriptservice.api" || key == "scriptservice.oAuth"):
		return key
	case parent == roleScriptservice && (key == "api" || key == "oAuth"):
		return "scriptservice." + key
	}
	return ""
}

// maxFastDepth bounds the nesting the fast path follows; configuration
// files nest four or five levels.
const maxFastDepth = 32

// split checks every character and cuts the content lines. Columns are
// byte offsets: a node never starts after a non-ASCII character, since
// keys are ASCII and everything before a value is indentation, "- " and a
// key.
func (p *fastParser) split(data []byte) bool {
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '\n' || (c >= 0x20 && c < 0x7f):
			i++
			continue
		case c < 0x80:
			return false // tab, CR, other control characters
		}
		r, size := utf8.DecodeRune(data[i:])
		// YAML's printable set, less the characters libyaml treats as line
		// breaks (U+0085, U+2028, U+2029) and the byte order mark.
		if r == utf8.RuneError || r < 0xA0 || (r >= 0xD800 && r < 0xE000) || r == 0x2028 || r == 0x2029 || r == 0xFEFF || r == 0xFFFE || r == 0xFFFF {
			return false
		}
		i += size
	}
	p.lines = make([]fastLine, 0, bytes.Count(data, []byte{'\n'})+1)
	for num := 1; len(data) > 0; num++ {
		text := data
		if j := bytes.IndexByte(data, '\n'); j >= 0 {
			text, data = data[:j], data[j+1:]
		} else {
			data = nil
		}
		indent := 0
		for indent < len(text) && text[indent] == ' ' {
			indent++
		}
		if indent == len(text) || text[indent] == '#' {
			continue
		}
		if indent == 0 && (bytes.HasPrefix(text, []byte("---")) || bytes.HasPrefix(text, []byte("...")) || text[0] == '%') {
			return false // document markers and directives
		}
		p.lines = append(p.lines, fastLine{text: text, num: num, indent: indent})
	}
	return true
}

// block parses the mapping or sequence that starts on the current line at
// its indentation.
func (p *fastParser) block(indent int) (*yaml.Node, bool) {
	l := p.lines[p.i]
	if isDash(l.text, indent) {
		return p.sequence(indent)
	}
	return p.mapping(indent, indent)
}

func isDash(text []byte, at int) bool {
	return at < len(text) && text[at] == '-' && (at+1 == len(text) || text[at+1] == ' ')
}

// keyEnd returns the offset of the ':' ending a plain key that starts at
// at, or -1. Keys are restricted to the characters configuration keys use.
func keyEnd(text []byte, at int) int {
	j := at
	for j < len(text) && j-at < 1000 && isKeyChar(text[j]) {
		j++
	}
	if j == at || text[at] == '-' || j == len(text) || text[j] != ':' || (j+1 < len(text) && text[j+1] != ' ') {
		return -1
	}
	return j
}

func isKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// mapping parses a block mapping whose keys sit at column indent; the
// first key starts at start on the current line (after "- " when the
// mapping is a sequence item, so start may exceed that line's indent).
func (p *fastParser) mapping(indent, start int) (*yaml.Node, bool) {
	if p.depth++; p.depth > maxFastDepth {
		return nil, false
	}
	defer func() { p.depth-- }()
	role := p.take()
	l := p.lines[p.i]
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: l.num, Column: start + 1}
	for {
		colon := keyEnd(l.text, start)
		if colon < 0 || len(n.Content) >= 512 {
			return nil, false
		}
		key := string(l.text[start:colon])
		for k := 0; k < len(n.Content); k += 2 {
			if n.Content[k].Value == key {
				return nil, false // the library rejects duplicate keys
			}
		}
		keyNode := &yaml.Node{Kind: yaml.ScalarNode, Tag: plainTag(key), Value: key, Line: l.num, Column: start + 1}
		j := colon + 1
		for j < len(l.text) && l.text[j] == ' ' {
			j++
		}
		var value *yaml.Node
		var ok bool
		if j == len(l.text) || l.text[j] == '#' {
			p.i++
			p.next = roleOf(role, key)
			value, ok = p.nested(indent, true, l.num, colon+2)
			p.next = ""
		} else {
			value, ok = p.scalar(l, j, indent)
		}
		if !ok {
			return nil, false
		}
		n.Content = append(n.Content, keyNode, value)
		if p.i == len(p.lines) {
			return n, true
		}
		l = p.lines[p.i]
		switch {
		case l.indent < indent:
			return n, true
		case l.indent > indent:
			return nil, false
		}
		start = indent
	}
}

// sequence parses a block sequence whose dashes sit at column indent.
func (p *fastParser) sequence(indent int) (*yaml.Node, bool) {
	if p.depth++; p.depth > maxFastDepth {
		return nil, false
	}
	defer func() { p.depth-- }()
	list := p.take()
	if p.item == nil || (list != "scriptservice.api" && list != "scriptservice.oAuth") {
		list = ""
	}
	l := p.lines[p.i]
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: l.num, Column: indent + 1}
	for {
		j := indent + 1
		for j < len(l.text) && l.text[j] == ' ' {
			j++
		}
		var item *yaml.Node
		var ok bool
		switch {
		case j == len(l.text) || l.text[j] == '#':
			p.i++
			item, ok = p.nested(indent, false, l.num, indent+2)
		case isDash(l.text, j):
			return nil, false // "- - x"
		case keyEnd(l.text, j) >= 0:
			item, ok = p.mapping(j, j)
		default:
			item, ok = p.scalar(l, j, indent)
		}
		if !ok {
			return nil, false
		}
		if list != "" {
			p.item(list, item)
		} else {
			n.Content = append(n.Content, item)
		}
		if p.i == len(p.lines) {
			return n, true
		}
		l = p.lines[p.i]
		switch {
		case l.indent < indent:
			return n, true
		case l.indent > indent:
			return nil, false
		case !isDash(l.text, indent):
			// The end of a sequence written at its key's indentation;
			// the enclosing mapping goes on with this line.
			return n, true
		}
	}
}

// nested parses the value of a key or dash that ends its line: a block
// on the following lines, or null. Under a key, a sequence may sit at the
// key's own indentation.
func (p *fastParser) nested(indent int, underKey bool, line, col int) (*yaml.Node, bool) {
	if p.i < len(p.lines) {
		l := p.lines[p.i]
		if l.indent > indent {
			if !isDash(l.text, l.indent) && keyEnd(l.text, l.indent) < 0 {
				return nil, false // a scalar on its own line
			}
			return p.block(l.indent)
		}
		if underKey && l.indent == indent && isDash(l.text, indent) {
			return p.sequence(indent)
		}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: line, Column: col}, true
}

// scalar parses a single-line scalar starting at j on line l and moves to
// the next line; a following line indented deeper than indent would
// continue the scalar, which the fast path leaves to the library.
func (p *fastParser) scalar(l fastLine, j, indent int) (*yaml.Node, bool) {
	n := &yaml.Node{Kind: yaml.ScalarNode, Line: l.num, Column: j + 1}
	text := l.text
	var rest int
	switch c := text[j]; c {
	case '"':
		end := bytes.IndexByte(text[j+1:], '"')
		if end < 0 {
			return nil, false
		}
		v := text[j+1 : j+1+end]
		if bytes.IndexByte(v, '\\') >= 0 {
			return nil, false // escapes
		}
		n.Value, n.Tag, n.Style = string(v), "!!str", yaml.DoubleQuotedStyle
		rest = j + 2 + end
	case '\'':
		var b []byte
		k := j + 1
		for {
			q := bytes.IndexByte(text[k:], '\'')
			if q < 0 {
				return nil, false
			}
			b = append(b, text[k:k+q]...)
			k += q + 1
			if k < len(text) && text[k] == '\'' {
				b = append(b, '\'')
				k++
				continue
			}
			break
		}
		n.Value, n.Tag, n.Style = string(b), "!!str", yaml.SingleQuotedStyle
		rest = k
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`':
		return nil, false // indicators
	default:
		end := len(text)
		if c := bytes.Index(text[j:], []byte(" #")); c >= 0 {
			end = j + c
		}
		v := bytes.TrimRight(text[j:end], " ")
		if bytes.Contains(v, []byte(": ")) || v[len(v)-1] == ':' {
			return nil, false
		}
		n.Value = string(v)
		n.Tag = plainTag(n.Value)
		rest = len(text)
	}
	// After a quoted scalar: spaces, then the end of the line or a comment.
	k := rest
	for k < len(text) && text[k] == ' ' {
		k++
	}
	if k < len(text) && (text[k] != '#' || k == rest) {
		return nil, false
	}
	p.i++
	if p.i < len(p.lines) && p.lines[p.i].indent > indent {
		return nil, false
	}
	return n, true
}

// plainTag is the tag the library resolves a plain scalar to, as far as
// the loader cares: null or not.
func plainTag(v string) string {
	switch v {
	case "", "~", "null", "Null", "NULL":
		return "!!null"
	}
	return "!!str"
}
