package config

import (
	"fmt"
	"strconv"
)

// parsePlatform reads the restclient timeouts from a platform config file:
// <config><VENDOR><restclient> with connection-timeout and read-timeout,
// each with default and maximum as attributes or child elements.
func parsePlatform(file string, data []byte) (Timeouts, []Diagnostic) {
	p := &parsed{file: file}
	t := DefaultTimeouts
	data, d, ok := decodeXML(file, data)
	if !ok {
		return t, []Diagnostic{d}
	}
	xp := scanXML(file, data)
	root, ok := parseXMLDoc(xp, data, p)
	if !ok {
		return t, p.diags
	}
	if root.Tag != "config" {
		p.add(xp.at(root), SeverityError, CodeBadRoot, fmt.Sprintf("root element is <%s>; the platform config must have <config> as its root (built-in timeouts are used)", root.Tag))
		return t, p.diags
	}
	var rc node
	found := false
	for vendor := range children(root) {
		if e, ok := child(vendor, "restclient"); ok {
			rc, found = e, true
		}
	}
	if !found {
		return t, p.diags
	}
	for c := range children(rc) {
		switch c.Tag {
		case "connection-timeout":
			t.Connection = timeoutPair(p, xp, c, DefaultTimeouts.Connection)
		case "read-timeout":
			t.Read = timeoutPair(p, xp, c, DefaultTimeouts.Read)
		default:
			p.unknown(xp.at(c), "element %q in <restclient>", "<"+c.Tag+">", []string{"<connection-timeout>", "<read-timeout>"})
		}
	}
	return t, p.diags
}

func timeoutPair(p *parsed, xp *xmlPositions, e node, builtin TimeoutPair) TimeoutPair {
	out := builtin
	bad := false
	read := func(name string, dst *int) {
		var raw string
		pos := xp.at(e)
		if a := e.SelectAttr(name); a != nil {
			raw = a.Value
		} else if c, ok := child(e, name); ok {
			raw, pos = text(c.Element), xp.at(c)
		} else {
			return
		}
		n, err := strconv.Atoi(raw)
		if err != nil || n <= 0 {
			p.add(pos, SeverityError, CodeTimeoutBad, fmt.Sprintf("%s %s is %q; it must be a positive whole number of milliseconds (built-in %d/%d ms are used)",
				e.Tag, name, raw, builtin.Default, builtin.Maximum))
			bad = true
			return
		}
		*dst = n
	}
	read("default", &out.Default)
	read("maximum", &out.Maximum)
	if bad {
		return builtin
	}
	if out.Default > out.Maximum {
		p.add(xp.at(e), SeverityError, CodeTimeoutBad, fmt.Sprintf("%s default %d ms is above its maximum %d ms; lower the default or raise the maximum (built-in %d/%d ms are used)",
			e.Tag, out.Default, out.Maximum, builtin.Default, builtin.Maximum))
		return builtin
	}
	return out
}
