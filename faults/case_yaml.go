package faults

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// YAML is the case as an item of a test file's cases list, input being
// context.input of the run explored (nil: none); each line starts with
// indent (the item's dash too) and ends in a newline. Strings are
// double-quoted and values JSON, which YAML reads as written; a
// fixture's keys come in the order people write them.
func (c Case) YAML(indent string, input json.RawMessage) string {
	var b strings.Builder
	line := func(format string, a ...any) {
		b.WriteString(indent)
		fmt.Fprintf(&b, format, a...)
		b.WriteByte('\n')
	}
	line("- name: %s", strconv.Quote(c.Name))
	// The case pins one outcome down: not explored again (as restls test
	// --faults --update writes it).
	line("  faults: false")
	if len(input) > 0 && string(input) != "null" {
		line("  input: %s", compactJSON(input))
	}
	line("  fixtures:")
	for _, f := range c.Fixtures {
		var m map[string]any
		if err := json.Unmarshal(f, &m); err != nil {
			line("    - %s", compactJSON(f))
			continue
		}
		line("    - %s", flowMap(m))
	}
	if e := c.Error; e != nil {
		m := map[string]any{}
		if e.Name != "" {
			m["name"] = e.Name
		}
		if e.Code != "" {
			m["code"] = e.Code
		}
		if e.Status != 0 {
			m["status"] = e.Status
		}
		line("  error: %s", flowMap(m))
	} else {
		line("  result: %s", compactJSON(c.Result))
	}
	return b.String()
}

// keyOrder puts a fixture's and an error's keys in the order people
// write them; others follow sorted.
var keyOrder = []string{"serviceId", "method", "path", "times", "status", "fault", "tokenFault", "headers", "body", "bodyText", "name", "code"}

// flowMap is m as a YAML flow mapping with JSON values.
func flowMap(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	rank := func(k string) int {
		if i := slices.Index(keyOrder, k); i >= 0 {
			return i
		}
		return len(keyOrder)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+": "+plainJSON(m[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// compactJSON is raw on one line ("null" when it is no JSON).
func compactJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "null"
	}
	return plainJSON(v)
}

// plainJSON is v as JSON on one line, <, > and & as they are.
func plainJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null"
	}
	return strings.TrimSuffix(b.String(), "\n")
}
