package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/restls/restls/input"
	yaml "go.yaml.in/yaml/v4"
)

// parseYAML reads scriptservice.api and scriptservice.oAuth from a YAML
// properties file. Other top-level keys belong to the platform and are
// ignored. Several documents (---) are read in order.
func parseYAML(file string, data []byte) *parsed {
	p := &parsed{file: file}
	// Each list item is read as the fast path parses it. The entries are
	// sized up front by their serviceId keys: an entry is about 200
	// bytes, and growing the slice by doubling would copy a large list
	// about twice.
	p.apis = make([]rawAPI, 0, bytes.Count(data, []byte("serviceId:")))
	if doc, ok := fastYAMLItems(data, func(list string, n *yaml.Node) { yamlItem(p, list, n) }); ok {
		yamlDoc(p, doc)
		return p
	}
	p = &parsed{file: file}
	// The budgeted decode (the fast path above reads no aliases); a
	// document past the budget is a YAMLBudgetError, placed as yaml/v4's
	// syntax errors are.
	dec, err := input.NewYAMLDecoder(data)
	if err != nil {
		p.add(Position{File: file, Line: 1, RuneCol: 1}, SeverityError, CodeSyntax, "YAML syntax error: "+err.Error())
		return p
	}
	for {
		doc, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// LoadError carries the mark of the problem itself (yaml.v3
			// reported only the start of the enclosing block).
			// Some reader errors (control characters) carry no mark: the
			// file's start is the best place to show them.
			pos, msg := Position{File: file, Line: 1, RuneCol: 1}, strings.TrimPrefix(err.Error(), "yaml: ")
			var le *yaml.LoadError
			if errors.As(err, &le) {
				msg = le.Message
				if le.Mark.Line > 0 {
					pos.Line, pos.RuneCol = le.Mark.Line, max(le.Mark.Column, 1)
				}
			}
			p.add(pos, SeverityError, CodeSyntax, "YAML syntax error: "+msg+"; fix the file: it is ignored until it parses")
			return p
		}
		yamlDoc(p, doc)
	}
	return p
}

func (p *parsed) ypos(n *yaml.Node) Position { return Position{p.file, n.Line, n.Column} }

// mapping returns key/value pairs of a mapping node.
func mapping(n *yaml.Node) [][2]*yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([][2]*yaml.Node, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, [2]*yaml.Node{n.Content[i], n.Content[i+1]})
	}
	return out
}

func yamlDoc(p *parsed, doc *yaml.Node) {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return
	}
	root := doc.Content[0]
	for _, kv := range mapping(root) {
		switch kv[0].Value {
		case "scriptservice":
			yamlScriptservice(p, kv[1])
		case "scriptservice.api":
			// Spring also accepts the dotted key on one level.
			yamlList(p, kv[1], "scriptservice.api")
		case "scriptservice.oAuth":
			yamlList(p, kv[1], "scriptservice.oAuth")
		}
	}
}

func yamlScriptservice(p *parsed, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		p.add(p.ypos(n), SeverityError, CodeSyntax, "scriptservice must be a mapping with an api list")
		return
	}
	for _, kv := range mapping(n) {
		switch kv[0].Value {
		case "api":
			p.apis = slices.Grow(p.apis, len(kv[1].Content))
			yamlList(p, kv[1], "scriptservice.api")
		case "oAuth":
			yamlList(p, kv[1], "scriptservice.oAuth")
		default:
			p.unknown(p.ypos(kv[0]), "key %q under scriptservice", kv[0].Value, scriptserviceFields)
		}
	}
}

// yamlList reads the list scriptservice.api or scriptservice.oAuth (its
// items, unless the fast path has read them already).
func yamlList(p *parsed, n *yaml.Node, name string) {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || n.Value == "") {
		return
	}
	if n.Kind != yaml.SequenceNode {
		p.add(p.ypos(n), SeverityError, CodeSyntax, name+" must be a list (each item starting with \"- \")")
		return
	}
	for _, item := range n.Content {
		yamlItem(p, name, item)
	}
}

// yamlItem reads one item of the list scriptservice.api or
// scriptservice.oAuth.
func yamlItem(p *parsed, list string, item *yaml.Node) {
	if item.Kind != yaml.MappingNode {
		p.add(p.ypos(item), SeverityError, CodeSyntax, "each item of "+list+" must be a mapping of keys to values")
		return
	}
	if list == "scriptservice.api" {
		p.apis = append(p.apis, yamlAPI(p, item))
	} else {
		p.oauths = append(p.oauths, yamlOAuth(p, item))
	}
}

// scalar reads a scalar value; anything else is a diagnostic.
func (p *parsed) yscalar(key, v *yaml.Node) field {
	if v.Kind != yaml.ScalarNode {
		p.add(p.ypos(v), SeverityError, CodeSyntax, fmt.Sprintf("%s must be a single value", key.Value))
		return field{pos: p.ypos(key)}
	}
	if v.Tag == "!!null" {
		return field{pos: p.ypos(key)}
	}
	return field{value: strings.TrimSpace(v.Value), set: true, pos: p.ypos(key)}
}

func yamlAPI(p *parsed, n *yaml.Node) rawAPI {
	a := rawAPI{pos: p.ypos(n)}
	a.serviceID.pos, a.url.pos, a.description.pos = a.pos, a.pos, a.pos
	for _, kv := range mapping(n) {
		switch kv[0].Value {
		case "serviceId":
			a.serviceID = p.yscalar(kv[0], kv[1])
		case "url":
			a.url = p.yscalar(kv[0], kv[1])
		case "description":
			a.description = p.yscalar(kv[0], kv[1])
		case "authorization":
			a.auth = yamlAuth(p, kv[0], kv[1])
		default:
			p.unknown(p.ypos(kv[0]), "key %q in an api entry", kv[0].Value, apiFields)
		}
	}
	return a
}

func yamlAuth(p *parsed, key, n *yaml.Node) *rawAuth {
	au := &rawAuth{pos: p.ypos(key)}
	au.typ.pos = au.pos
	if n.Kind != yaml.MappingNode {
		p.add(p.ypos(n), SeverityError, CodeSyntax, "authorization must be a mapping with a type")
		return au
	}
	for _, kv := range mapping(n) {
		switch kv[0].Value {
		case "type":
			au.typ = p.yscalar(kv[0], kv[1])
		case "encodedCredentials":
			au.encodedCredentials = p.yscalar(kv[0], kv[1])
		case "id":
			au.id = p.yscalar(kv[0], kv[1])
		default:
			p.unknown(p.ypos(kv[0]), "key %q in authorization", kv[0].Value, authFields)
		}
	}
	return au
}

func yamlOAuth(p *parsed, n *yaml.Node) rawOAuth {
	o := rawOAuth{fields: map[string]field{}, pos: p.ypos(n)}
	for _, kv := range mapping(n) {
		k := kv[0].Value
		switch {
		case k == "authorization":
			o.auth = yamlAuth(p, kv[0], kv[1])
		case k == "additionalParams":
			if kv[1].Kind != yaml.MappingNode {
				p.add(p.ypos(kv[1]), SeverityError, CodeSyntax, "additionalParams must be a mapping of parameter names to values")
				continue
			}
			for _, pv := range mapping(kv[1]) {
				f := p.yscalar(pv[0], pv[1])
				o.params = append(o.params, Param{Name: pv[0].Value, Value: NewSecret(f.value)})
			}
		case contains(oauthAttrs, k):
			o.fields[k] = p.yscalar(kv[0], kv[1])
		default:
			p.unknown(p.ypos(kv[0]), "key %q in an oAuth entry", k, oauthFields)
		}
	}
	return o
}
