package openapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/restls/restls/input"
	yaml "go.yaml.in/yaml/v4"
)

// The description is read into a small generic tree (objects keep their
// keys in order and every value its line), which the index builder walks
// and then drops. See docs/decisions.md ("OpenAPI descriptions") for why
// this is not a full OpenAPI model.

// Limits of what a description may be.
const (
	// MaxSize is the largest description read, in bytes.
	MaxSize = 48 << 20
	// maxDepth bounds the nesting of the document's values.
	maxDepth = 256
	// maxNodes bounds the values of one document, YAML aliases expanded.
	maxNodes = 4 << 20
)

// LineError is a problem at a line of the description.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// ErrorLine returns the line an error of Build points at, or 0.
func ErrorLine(err error) int {
	var le *LineError
	if errors.As(err, &le) {
		return le.Line
	}
	var ye *yaml.LoadError
	if errors.As(err, &ye) {
		return ye.Mark.Line
	}
	return 0
}

func lineErr(line int32, format string, args ...any) error {
	return &LineError{Line: int(line), Err: fmt.Errorf(format, args...)}
}

// ErrTooLarge is returned for a description above MaxSize or maxNodes.
var ErrTooLarge = errors.New("description too large")

type kind byte

const (
	kObject kind = iota + 1
	kArray
	kString
	kNumber
	kBool
	kNull
)

// node is one value of the description.
type node struct {
	kind kind
	line int32 // 1-based line of the value (of its key, for a member)
	str  string
	keys []string
	vals []*node
	idx  map[string]*node // built on first lookup in a large object
}

// get returns the member key of an object, or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kObject {
		return nil
	}
	if len(n.keys) > 16 {
		if n.idx == nil {
			n.idx = make(map[string]*node, len(n.keys))
			for i, k := range n.keys {
				if _, dup := n.idx[k]; !dup {
					n.idx[k] = n.vals[i]
				}
			}
		}
		return n.idx[key]
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// text returns a string member, or "".
func (n *node) text(key string) string {
	if v := n.get(key); v != nil && v.kind == kString {
		return v.str
	}
	return ""
}

// scalar returns a scalar value as text, or "".
func (n *node) scalar() string {
	if n == nil {
		return ""
	}
	switch n.kind {
	case kString, kNumber, kBool:
		return n.str
	case kNull:
		return "null"
	}
	return ""
}

func (n *node) flag(key string) bool {
	v := n.get(key)
	return v != nil && v.kind == kBool && v.str == "true"
}

// parseTree reads JSON or YAML. JSON is read with a streaming tokenizer
// (a large description is nearly always JSON); anything else as YAML.
func parseTree(data []byte) (*node, error) {
	if len(data) > MaxSize {
		return nil, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(data), MaxSize)
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return parseJSON(data)
	}
	return parseYAML(data)
}

type jsonReader struct {
	data  []byte
	dec   *jsontext.Decoder
	off   int64
	line  int32
	nodes int
}

func parseJSON(data []byte) (*node, error) {
	r := &jsonReader{data: data, dec: jsontext.NewDecoder(bytes.NewReader(data)), line: 1}
	n, err := r.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := r.dec.ReadToken(); err != io.EOF {
		return nil, lineErr(r.line, "data after the document")
	}
	return n, nil
}

// advance counts the lines up to the decoder's offset.
func (r *jsonReader) advance() {
	off := r.dec.InputOffset()
	if off > r.off && off <= int64(len(r.data)) {
		r.line += int32(bytes.Count(r.data[r.off:off], []byte{'\n'}))
		r.off = off
	}
}

func (r *jsonReader) value(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, lineErr(r.line, "nested deeper than %d", maxDepth)
	}
	r.nodes++
	if r.nodes > maxNodes {
		return nil, fmt.Errorf("%w: more than %d values", ErrTooLarge, maxNodes)
	}
	tok, err := r.dec.ReadToken()
	if err != nil {
		return nil, lineErr(r.line, "%w", err)
	}
	r.advance()
	n := &node{line: r.line}
	switch tok.Kind() {
	case '{':
		n.kind = kObject
		for r.dec.PeekKind() != '}' {
			k, err := r.dec.ReadToken()
			if err != nil {
				return nil, lineErr(r.line, "%w", err)
			}
			key := k.String()
			r.advance()
			line := r.line
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.line = line
			n.keys = append(n.keys, key)
			n.vals = append(n.vals, v)
		}
		if _, err := r.dec.ReadToken(); err != nil {
			return nil, lineErr(r.line, "%w", err)
		}
		r.advance()
	case '[':
		n.kind = kArray
		for r.dec.PeekKind() != ']' {
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, v)
		}
		if _, err := r.dec.ReadToken(); err != nil {
			return nil, lineErr(r.line, "%w", err)
		}
		r.advance()
	case '"':
		n.kind, n.str = kString, tok.String()
	case '0':
		n.kind, n.str = kNumber, tok.String()
	case 't', 'f':
		n.kind, n.str = kBool, tok.String()
	case 'n':
		n.kind = kNull
	default:
		return nil, lineErr(r.line, "unexpected %v", tok.Kind())
	}
	return n, nil
}

func parseYAML(data []byte) (*node, error) {
	doc, err := input.YAMLNode(data)
	if err != nil {
		return nil, err
	}
	if doc.Kind == 0 {
		return nil, errors.New("empty document")
	}
	c := &yamlConv{}
	return c.conv(doc, 0)
}

type yamlConv struct{ nodes int }

func (c *yamlConv) conv(y *yaml.Node, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, lineErr(int32(y.Line), "nested deeper than %d (or an alias that refers to itself)", maxDepth)
	}
	c.nodes++
	if c.nodes > maxNodes {
		return nil, fmt.Errorf("%w: more than %d values", ErrTooLarge, maxNodes)
	}
	n := &node{line: int32(y.Line)}
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return nil, errors.New("empty document")
		}
		return c.conv(y.Content[0], depth+1)
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, lineErr(int32(y.Line), "unknown alias")
		}
		return c.conv(y.Alias, depth+1)
	case yaml.MappingNode:
		n.kind = kObject
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			val, err := c.conv(v, depth+1)
			if err != nil {
				return nil, err
			}
			val.line = int32(k.Line)
			n.keys = append(n.keys, k.Value)
			n.vals = append(n.vals, val)
		}
	case yaml.SequenceNode:
		n.kind = kArray
		for _, v := range y.Content {
			val, err := c.conv(v, depth+1)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, val)
		}
	case yaml.ScalarNode:
		n.str = y.Value
		switch strings.TrimPrefix(y.ShortTag(), "!!") {
		case "int", "float":
			n.kind = kNumber
		case "bool":
			n.kind = kBool
			if b := strings.ToLower(y.Value); b == "true" || b == "false" {
				n.str = b
			}
		case "null":
			n.kind = kNull
		default:
			n.kind = kString
		}
	default:
		n.kind = kNull
	}
	return n, nil
}
