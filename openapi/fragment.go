package openapi

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// RecordedFragment writes the answers recorded for serviceID in idxs
// (indexes of BuildRecorded, one per fixture file) as an OpenAPI 3.0
// document in YAML, for someone to review and attach as the service's
// description: one operation per recorded method and path (a "*" segment
// becomes a path parameter), its 2XX answers' shapes merged across the
// files (keys some answers lacked are optional, differing types a oneOf,
// a value seen its example), its other statuses listed. show turns a
// file's path into what the reader is shown. It returns the document and
// how many operations it holds; it merges into the first index's
// schemas, so idxs must not be in use elsewhere.
func RecordedFragment(serviceID string, idxs []*Index, show func(string) string) ([]byte, int) {
	type opAt struct {
		op     *Operation
		source string
		errs   map[string]bool
	}
	byKey := map[string]*opAt{}
	var keys []string
	var sources []string
	for _, idx := range idxs {
		if idx == nil || !idx.Recorded {
			continue
		}
		used := false
		for _, op := range idx.Ops {
			if len(op.Segments) == 0 || op.Segments[0] != serviceID {
				continue
			}
			if !slices.Contains(methods[:], strings.ToLower(op.Method)) {
				continue // not an HTTP method OpenAPI describes
			}
			used = true
			path, _ := templatePath(op.Segments[1:])
			k := path + " " + op.Method
			at := byKey[k]
			if at == nil {
				at = &opAt{op: op, source: show(idx.Source) + ":" + strconv.Itoa(op.Line), errs: map[string]bool{}}
				byKey[k] = at
				keys = append(keys, k)
			} else if op.Response != nil {
				if at.op.Response == nil {
					at.op.Response = op.Response
				} else {
					mergeRecorded(at.op.Response, op.Response, 0)
				}
			}
			for _, e := range op.Errors {
				at.errs[e.Status] = true
			}
		}
		if used {
			sources = append(sources, show(idx.Source))
		}
	}
	sort.Strings(keys)
	w := &yamlWriter{}
	w.line(0, "# The answers of serviceId %s as recorded in %d fixture file(s) (restls fixtures schema %s):", serviceID, len(sources), serviceID)
	for _, s := range sources {
		w.line(0, "#   %s", s)
	}
	w.line(0, "# Recorded answers show what the service answered, not all it may answer:")
	w.line(0, "# review the shapes, then attach the file as the service's description.")
	w.line(0, "openapi: 3.0.3")
	w.line(0, "info:")
	w.line(1, "title: %s", quote(serviceID+" (inferred from recorded answers)"))
	w.line(1, "version: \"0\"")
	if len(keys) == 0 {
		w.line(0, "paths: {}")
		return []byte(w.b.String()), 0
	}
	w.line(0, "paths:")
	lastPath := ""
	for _, k := range keys {
		at := byKey[k]
		op := at.op
		path, params := templatePath(op.Segments[1:])
		if path != lastPath {
			w.line(1, "%s:", quote(path))
			lastPath = path
		}
		w.line(2, "%s:", strings.ToLower(op.Method))
		w.line(3, "summary: %s", quote("recorded answer of "+serviceID))
		if len(params) > 0 {
			w.line(3, "parameters:")
			for _, p := range params {
				w.line(4, "- name: %s", p)
				w.line(5, "in: path")
				w.line(5, "required: true")
				w.line(5, "schema:")
				w.line(6, "type: string")
			}
		}
		w.line(3, "responses:")
		if op.Response != nil {
			ok := "200"
			for _, st := range op.Statuses {
				if strings.HasPrefix(st, "2") {
					ok = st
					break
				}
			}
			w.line(4, "%s:", quote(ok))
			w.line(5, "description: %s", quote("recorded ("+at.source+")"))
			w.line(5, "content:")
			w.line(6, "application/json:")
			w.line(7, "schema:")
			w.schema(8, op.Response, 0)
		}
		errs := make([]string, 0, len(at.errs))
		for s := range at.errs {
			errs = append(errs, s)
		}
		sort.Strings(errs)
		for _, s := range errs {
			w.line(4, "%s:", quote(s))
			w.line(5, "description: recorded")
		}
		if op.Response == nil && len(errs) == 0 {
			w.line(4, "default:")
			w.line(5, "description: recorded")
		}
	}
	return []byte(w.b.String()), len(keys)
}

// templatePath turns recorded segments into a path template: a segment
// with a wildcard ("{*}") becomes a parameter, param1, param2 ...
func templatePath(segs []string) (string, []string) {
	var b strings.Builder
	var params []string
	for _, s := range segs {
		if strings.HasPrefix(s, "{") {
			params = append(params, "param"+strconv.Itoa(len(params)+1))
			s = "{" + params[len(params)-1] + "}"
		}
		b.WriteString("/" + s)
	}
	if b.Len() == 0 {
		return "/", nil
	}
	return b.String(), params
}

type yamlWriter struct{ b strings.Builder }

func (w *yamlWriter) line(indent int, format string, args ...any) {
	w.b.WriteString(strings.Repeat("  ", indent))
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

// quote writes s as a YAML double-quoted scalar (JSON's quoting).
func quote(s string) string { return strconv.Quote(s) }

// schema writes a recorded schema: types as type (or oneOf), null as
// nullable, properties with required, items, the first value seen as
// example.
func (w *yamlWriter) schema(indent int, s *Schema, depth int) {
	if s == nil || depth > maxSchemaDepth {
		w.line(indent, "{}")
		return
	}
	var types []string
	nullable := false
	for _, t := range strings.Split(s.Type, "|") {
		switch t {
		case "":
		case "null":
			nullable = true
		default:
			types = append(types, t)
		}
	}
	wrote := false
	switch len(types) {
	case 0:
	case 1:
		w.line(indent, "type: %s", types[0])
		wrote = true
	default:
		w.line(indent, "oneOf:")
		for _, t := range types {
			w.line(indent+1, "- type: %s", t)
		}
		wrote = true
	}
	if nullable {
		w.line(indent, "nullable: true")
		wrote = true
	}
	if len(s.Props) > 0 {
		var req []string
		for _, p := range s.Props {
			if p.Required {
				req = append(req, quote(p.Name))
			}
		}
		if len(req) > 0 {
			w.line(indent, "required: [%s]", strings.Join(req, ", "))
		}
		w.line(indent, "properties:")
		for _, p := range s.Props {
			w.line(indent+1, "%s:", quote(p.Name))
			w.schema(indent+2, p.Schema, depth+1)
		}
		wrote = true
	}
	if s.Items != nil {
		w.line(indent, "items:")
		w.schema(indent+1, s.Items, depth+1)
		wrote = true
	}
	if len(s.Seen) > 0 && len(types) == 1 {
		ex := s.Seen[0]
		if types[0] == "string" {
			ex = quote(ex)
		}
		w.line(indent, "example: %s", ex)
		wrote = true
	}
	if !wrote {
		w.line(indent, "{}")
	}
}
