package openapi

import (
	"errors"
	"sort"
	"strconv"
	"strings"
)

// Recorded answers: the mock fixtures of `restls run --mock` (and what
// --record writes) say what a service answered to a serviceId, method
// and path. BuildRecorded reads them into an Index whose operations'
// first segment is the serviceId, so that Attach gives each service the
// shape of its answers (r.body) where it has no description.

// BuildRecorded reads a fixture file (YAML or JSON: a list of fixtures,
// or an object with a "fixtures" list) into an Index marked Recorded.
// Fixtures whose path is absent or has "**" are left out: they stand for
// any path.
func BuildRecorded(source string, data []byte) (*Index, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	list := root
	if root.kind == kObject {
		list = root.get("fixtures")
	}
	if list == nil || list.kind != kArray {
		return nil, errors.New(`not a fixture file: want a list of fixtures or {"fixtures": [...]}`)
	}
	idx := &Index{Source: source, Recorded: true, memos: newMemos()}
	seen := map[string]*Operation{}
	// merged are the answers merged from several fixtures, each with
	// its index of properties by name; sorted once all are in.
	merged := map[*Schema]map[string]int{}
	for _, f := range list.vals {
		id := f.text("serviceId")
		p := f.get("path")
		if id == "" || p == nil || p.kind != kString || strings.Contains(p.str, "**") {
			continue
		}
		method := strings.ToUpper(f.text("method"))
		if method == "" {
			method = "GET"
		}
		status := 200
		if s := f.get("status"); s != nil {
			if n, err := strconv.Atoi(s.scalar()); err == nil {
				status = n
			}
		}
		segs := []string{id}
		var tmpl []string
		for _, s := range splitPath(p.str) {
			if strings.ContainsAny(s, "*?[") {
				s = "{" + s + "}"
			}
			segs = append(segs, s)
			tmpl = append(tmpl, s)
		}
		key := method + " " + strings.Join(segs, "/")
		op := seen[key]
		if op == nil {
			op = &Operation{Method: method, Path: "/" + strings.Join(tmpl, "/"), Segments: segs, Line: int(f.line),
				Summary: "recorded answer of " + id}
			seen[key] = op
			idx.Ops = append(idx.Ops, op)
		}
		body := inferSchema(f.get("body"), 0)
		if status >= 200 && status < 300 {
			if op.Response == nil {
				op.Response = body
			} else if body != nil {
				merged[op.Response] = op.Response.merge(body, false, merged[op.Response])
			}
		} else {
			op.Errors = append(op.Errors, Answer{Status: strconv.Itoa(status), Schema: body})
		}
	}
	for s := range merged {
		sortProps(s.Props)
	}
	sort.SliceStable(idx.Ops, func(i, j int) bool {
		return strings.Join(idx.Ops[i].Segments, "/") < strings.Join(idx.Ops[j].Segments, "/")
	})
	idx.paths = buildTrie(idx.Ops)
	return idx, nil
}

// inferSchema describes a recorded JSON value: objects by their keys,
// arrays by the keys of all their elements.
func inferSchema(n *node, depth int) *Schema {
	if n == nil || depth > maxSchemaDepth {
		return nil
	}
	s := &Schema{Line: int(n.line)}
	switch n.kind {
	case kObject:
		s.Type = "object"
		for i, k := range n.keys {
			s.Props = append(s.Props, Prop{Name: k, Schema: inferSchema(n.vals[i], depth+1)})
		}
		sortProps(s.Props)
	case kArray:
		s.Type = "array"
		var at map[string]int
		for i, v := range n.vals {
			if i == 100 {
				break
			}
			e := inferSchema(v, depth+1)
			if s.Items == nil {
				s.Items = e
			} else if e != nil {
				at = s.Items.merge(e, false, at)
			}
		}
		if s.Items != nil {
			sortProps(s.Items.Props)
		}
	case kString:
		s.Type = "string"
	case kNumber:
		s.Type = "number"
		if !strings.ContainsAny(n.str, ".eE") {
			s.Type = "integer"
		}
	case kBool:
		s.Type = "boolean"
	case kNull:
		s.Type = "null"
	}
	return s
}
