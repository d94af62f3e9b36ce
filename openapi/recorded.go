package openapi

import (
	"errors"
	"slices"
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
		if st := strconv.Itoa(status); !slices.Contains(op.Statuses, st) {
			op.Statuses = append(op.Statuses, st)
		}
		body := inferSchema(f.get("body"), 0)
		if status >= 200 && status < 300 {
			if op.Response == nil {
				op.Response = body
			} else if body != nil {
				mergeRecorded(op.Response, body, 0)
			}
		} else {
			op.Errors = append(op.Errors, Answer{Status: strconv.Itoa(status), Schema: body})
		}
	}
	sort.SliceStable(idx.Ops, func(i, j int) bool {
		return strings.Join(idx.Ops[i].Segments, "/") < strings.Join(idx.Ops[j].Segments, "/")
	})
	idx.paths = buildTrie(idx.Ops)
	return idx, nil
}

// maxSeen bounds the values a recorded schema keeps (Schema.Seen).
const maxSeen = 5

// inferSchema describes a recorded JSON value: objects by their keys
// (each required: it was there), arrays by the merge of their first 100
// elements, scalars by their type and value.
func inferSchema(n *node, depth int) *Schema {
	if n == nil || depth > maxSchemaDepth {
		return nil
	}
	s := &Schema{Line: int(n.line)}
	switch n.kind {
	case kObject:
		s.Type = "object"
		for i, k := range n.keys {
			s.Props = append(s.Props, Prop{Name: k, Required: true, Schema: inferSchema(n.vals[i], depth+1)})
		}
		sortProps(s.Props)
		// A key written twice: the first one counts.
		s.Props = slices.CompactFunc(s.Props, func(a, b Prop) bool { return a.Name == b.Name })
	case kArray:
		s.Type = "array"
		for i, v := range n.vals {
			if i == 100 {
				break
			}
			e := inferSchema(v, depth+1)
			if s.Items == nil {
				s.Items = e
			} else if e != nil {
				mergeRecorded(s.Items, e, depth+1)
			}
		}
	case kString, kNumber, kBool:
		s.Type = map[kind]string{kString: "string", kNumber: "number", kBool: "boolean"}[n.kind]
		if n.kind == kNumber && !strings.ContainsAny(n.str, ".eE") {
			s.Type = "integer"
		}
		if len(n.str) <= 64 {
			s.Seen = []string{n.str}
		}
	case kNull:
		s.Type = "null"
	}
	return s
}

// mergeRecorded merges the shape of another recorded answer o into s:
// the types either had (integer and number make number), the keys both
// had stay required and the others become optional, the values seen
// (at most maxSeen).
func mergeRecorded(s, o *Schema, depth int) {
	if depth > maxSchemaDepth {
		return
	}
	s.Type = mergeTypes(s.Type, o.Type)
	for _, v := range o.Seen {
		if len(s.Seen) < maxSeen && !slices.Contains(s.Seen, v) {
			s.Seen = append(s.Seen, v)
		}
	}
	if o.Type == "object" || len(o.Props) > 0 {
		if s.Props == nil && len(o.Props) > 0 && !strings.Contains(s.Type, "object") {
			s.Props = []Prop{}
		}
		for i := range s.Props {
			if o.Prop(s.Props[i].Name) == nil {
				s.Props[i].Required = false
			}
		}
		added := false
		for _, p := range o.Props {
			if q := s.Prop(p.Name); q != nil {
				if q.Schema == nil {
					q.Schema = p.Schema
				} else if p.Schema != nil {
					mergeRecorded(q.Schema, p.Schema, depth+1)
				}
				continue
			}
			p.Required = false
			s.Props = append(s.Props, p)
			added = true
		}
		if added {
			sortProps(s.Props)
		}
	}
	if o.Items != nil {
		if s.Items == nil {
			s.Items = o.Items
		} else {
			mergeRecorded(s.Items, o.Items, depth+1)
		}
	}
}

// mergeTypes joins two recorded types: "integer" and "number" make
// "number"; others are listed, "string|null".
func mergeTypes(a, b string) string {
	switch {
	case a == b || b == "":
		return a
	case a == "":
		return b
	}
	set := strings.Split(a, "|")
	for _, t := range strings.Split(b, "|") {
		if !slices.Contains(set, t) {
			set = append(set, t)
		}
	}
	if slices.Contains(set, "number") && slices.Contains(set, "integer") {
		set = slices.DeleteFunc(set, func(t string) bool { return t == "integer" })
	}
	sort.Strings(set)
	return strings.Join(set, "|")
}
