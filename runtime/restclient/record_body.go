package restclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"

	"github.com/restls/restls/input"
	yaml "go.yaml.in/yaml/v4"
)

// maxBodyDepth bounds the nesting of a fixture body, as encoding/json does.
const maxBodyDepth = 10000

// yamlToJSON writes a fixture's YAML body as JSON: object keys in document
// order and numbers with the text they were written with (1.0 stays 1.0, a
// big integer keeps every digit), so the script sees what the service sent.
func yamlToJSON(n *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	if err := writeYAMLJSON(&b, n, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeYAMLJSON(b *bytes.Buffer, n *yaml.Node, depth int) error {
	if depth > maxBodyDepth {
		return fmt.Errorf("body is nested deeper than %d levels", maxBodyDepth)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return fmt.Errorf("empty body")
		}
		return writeYAMLJSON(b, n.Content[0], depth+1)
	case yaml.AliasNode:
		if n.Alias == nil {
			return fmt.Errorf("line %d: unknown alias", n.Line)
		}
		return writeYAMLJSON(b, n.Alias, depth+1)
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeYAMLJSON(b, c, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case yaml.MappingNode:
		b.WriteByte('{')
		first := true
		if err := writeYAMLPairs(b, n, depth, &first); err != nil {
			return err
		}
		b.WriteByte('}')
		return nil
	case yaml.ScalarNode:
		return writeYAMLScalar(b, n)
	}
	return fmt.Errorf("line %d: a body holds only mappings, lists and scalars", n.Line)
}

// writeYAMLPairs writes the pairs of a mapping, those of merged ("<<")
// mappings first, as YAML's merge key puts them under the others.
func writeYAMLPairs(b *bytes.Buffer, n *yaml.Node, depth int, first *bool) error {
	if depth > maxBodyDepth {
		return fmt.Errorf("body is nested deeper than %d levels", maxBodyDepth)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			for v.Kind == yaml.AliasNode && v.Alias != nil {
				v = v.Alias
			}
			merged := []*yaml.Node{v}
			if v.Kind == yaml.SequenceNode {
				merged = v.Content
			}
			for _, m := range merged {
				for m.Kind == yaml.AliasNode && m.Alias != nil {
					m = m.Alias
				}
				if m.Kind != yaml.MappingNode {
					return fmt.Errorf("line %d: << merges only mappings", k.Line)
				}
				if err := writeYAMLPairs(b, m, depth+1, first); err != nil {
					return err
				}
			}
			continue
		}
		for k.Kind == yaml.AliasNode && k.Alias != nil {
			k = k.Alias
		}
		if k.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: an object key must be a scalar", k.Line)
		}
		if !*first {
			b.WriteByte(',')
		}
		*first = false
		writeJSONString(b, k.Value)
		b.WriteByte(':')
		if err := writeYAMLJSON(b, v, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func writeYAMLScalar(b *bytes.Buffer, n *yaml.Node) error {
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		writeJSONString(b, n.Value)
		return nil
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		if isJSONNumber(n.Value) {
			b.WriteString(n.Value)
			return nil
		}
		if n.ShortTag() == "!!int" {
			var i big.Int
			var v any
			if err := input.DecodeYAMLValue(n, &v); err == nil {
				if _, ok := i.SetString(fmt.Sprint(v), 10); ok {
					b.WriteString(i.String())
					return nil
				}
			}
		} else {
			var f float64
			if err := input.DecodeYAMLValue(n, &f); err == nil {
				if j, err := json.Marshal(f); err == nil {
					b.Write(j)
					return nil
				}
			}
		}
		return fmt.Errorf("line %d: %s is not a JSON number", n.Line, n.Value)
	case "!!bool":
		var v bool
		if err := input.DecodeYAMLValue(n, &v); err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		if v {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
		return nil
	case "!!null":
		b.WriteString("null")
		return nil
	}
	writeJSONString(b, n.Value)
	return nil
}

func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // Encode's newline
}

// isJSONNumber reports whether s is a number as JSON writes it.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	start := i
	if n := digits(); n == 0 || (n > 1 && s[start] == '0') {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// jsonToYAML turns a JSON body into a YAML node: keys in the order the
// service sent them, numbers with their text, strings quoted wherever
// YAML would read them as something else.
func jsonToYAML(data []byte) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readJSONNode(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON body")
	}
	return n, nil
}

func readJSONNode(dec *json.Decoder, depth int) (*yaml.Node, error) {
	if depth > maxBodyDepth {
		return nil, fmt.Errorf("body is nested deeper than %d levels", maxBodyDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := readJSONNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, strNode(k), v)
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for dec.More() {
				v, err := readJSONNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, v)
			}
			_, err := dec.Token()
			return n, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case string:
		return strNode(t), nil
	case json.Number:
		// Plain: every JSON number reads back as a YAML int or float,
		// except one past float64's range (1e400), which YAML reads as a
		// string: that one is written tagged, !!float 1e400.
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: t.String()}
		if _, err := strconv.ParseFloat(n.Value, 64); err != nil {
			n.Tag, n.Style = "!!float", yaml.TaggedStyle
		}
		return n, nil
	case bool:
		if t {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"}, nil
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "false"}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

func strNode(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.ContainsAny(s, "\n\r\t") || !isPrintable(s) {
		// The encoder's literal blocks lose trailing spaces and \r.
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

func isPrintable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0xfeff || r == '\uFFFD' {
			return false
		}
	}
	return true
}

// redactJSON returns body with every credential the Redactor knows masked,
// still valid JSON: a string keeps its place with the secret replaced, a
// number that holds a secret becomes a masked string. A body with nothing
// to hide is returned as it is.
func redactJSON(body []byte, red *Redactor) []byte {
	if !red.active() || red.String(string(body)) == string(body) {
		return body
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var b bytes.Buffer
	if err := redactJSONValue(&b, dec, red, 0); err != nil {
		// Not JSON after all: as a string.
		b.Reset()
		writeJSONString(&b, red.String(string(body)))
	}
	return b.Bytes()
}

func redactJSONValue(b *bytes.Buffer, dec *json.Decoder, red *Redactor, depth int) error {
	if depth > maxBodyDepth {
		return fmt.Errorf("body is nested deeper than %d levels", maxBodyDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		end := byte('}')
		if t == '[' {
			end = ']'
		}
		b.WriteByte(byte(t))
		for i := 0; dec.More(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			if t == '{' {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				writeJSONString(b, red.String(k))
				b.WriteByte(':')
			}
			if err := redactJSONValue(b, dec, red, depth+1); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		b.WriteByte(end)
	case string:
		writeJSONString(b, red.String(t))
	case json.Number:
		if m := red.String(t.String()); m != t.String() {
			writeJSONString(b, m)
		} else {
			b.WriteString(t.String())
		}
	case bool:
		fmt.Fprint(b, t)
	case nil:
		b.WriteString("null")
	}
	return nil
}
