package config

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// propLine is one logical line of a .properties file.
type propLine struct {
	key, value string
	line       int
}

// splitProperties reads Java .properties text: comments (# and !),
// key/value separators (=, : or white space), continuation lines ending in
// an odd number of backslashes, and the escapes \t \n \r \f \uXXXX.
func splitProperties(data string) ([]propLine, []int) {
	var out []propLine
	var badEscapes []int
	lines := strings.Split(data, "\n")
	for i := 0; i < len(lines); i++ {
		start := i + 1
		l := strings.TrimLeft(strings.TrimSuffix(lines[i], "\r"), " \t\f")
		if l == "" || l[0] == '#' || l[0] == '!' {
			continue
		}
		for endsContinued(l) && i+1 < len(lines) {
			i++
			l = l[:len(l)-1] + strings.TrimLeft(strings.TrimSuffix(lines[i], "\r"), " \t\f")
		}
		if endsContinued(l) {
			l = l[:len(l)-1]
		}
		// The key ends at the first unescaped separator.
		k := 0
		for k < len(l) {
			c := l[k]
			if c == '\\' {
				k += 2
				continue
			}
			if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
				break
			}
			k++
		}
		if k > len(l) {
			k = len(l)
		}
		key, rest := l[:k], l[k:]
		rest = strings.TrimLeft(rest, " \t\f")
		if rest != "" && (rest[0] == '=' || rest[0] == ':') {
			rest = strings.TrimLeft(rest[1:], " \t\f")
		}
		uk, ok1 := unescapeProp(key)
		uv, ok2 := unescapeProp(rest)
		if !ok1 || !ok2 {
			badEscapes = append(badEscapes, start)
		}
		out = append(out, propLine{uk, uv, start})
	}
	return out, badEscapes
}

func endsContinued(l string) bool {
	n := 0
	for i := len(l) - 1; i >= 0 && l[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

func unescapeProp(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, true
	}
	ok := true
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 <= len(s) {
				if r, err := strconv.ParseUint(s[i+1:i+5], 16, 32); err == nil {
					b.WriteRune(rune(r))
					i += 4
					continue
				}
			}
			ok = false
			b.WriteByte('u')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), ok
}

// propKey matches scriptservice.api[0].rest and scriptservice.oAuth[0].rest.
var propKey = regexp.MustCompile(`^scriptservice\.(api|oAuth)\[(\d+)\]\.(.+)$`)

// parseProperties reads scriptservice.api[N].* and scriptservice.oAuth[N].*
// from a .properties file. Entries are ordered by index, as Spring binds
// lists; an entry's position is the first line that mentions its index.
func parseProperties(file, data string) *parsed {
	p := &parsed{file: file}
	lines, bad := splitProperties(data)
	for _, l := range bad {
		p.add(Position{file, l, 1}, SeverityWarning, CodeSyntax, `malformed \uXXXX escape: it is kept as written`)
	}
	type group struct {
		index int
		lines []propLine
	}
	groups := map[string]map[int]*group{"api": {}, "oAuth": {}}
	for _, l := range lines {
		if !strings.HasPrefix(l.key, "scriptservice.") {
			continue
		}
		m := propKey.FindStringSubmatch(l.key)
		if m == nil {
			p.add(Position{file, l.line, 1}, SeverityWarning, CodeUnknownName,
				fmt.Sprintf("key %q is not of the form scriptservice.api[N].<field> or scriptservice.oAuth[N].<field> (it is ignored)", l.key))
			continue
		}
		idx, err := strconv.Atoi(m[2])
		if err != nil || idx > 1_000_000 {
			p.add(Position{file, l.line, 1}, SeverityWarning, CodeUnknownName, fmt.Sprintf("index in %q is too large (it is ignored)", l.key))
			continue
		}
		g := groups[m[1]][idx]
		if g == nil {
			g = &group{index: idx}
			groups[m[1]][idx] = g
		}
		g.lines = append(g.lines, propLine{key: m[3], value: strings.TrimSpace(l.value), line: l.line})
	}
	sorted := func(m map[int]*group) []*group {
		out := make([]*group, 0, len(m))
		for _, g := range m {
			out = append(out, g)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].index < out[j].index })
		return out
	}
	for _, g := range sorted(groups["api"]) {
		a := rawAPI{pos: Position{file, g.lines[0].line, 1}}
		a.serviceID.pos, a.url.pos, a.description.pos = a.pos, a.pos, a.pos
		for _, l := range g.lines {
			f := field{value: l.value, set: true, pos: Position{file, l.line, 1}}
			switch {
			case l.key == "serviceId":
				a.serviceID = f
			case l.key == "url":
				a.url = f
			case l.key == "description":
				a.description = f
			case strings.HasPrefix(l.key, "authorization."):
				if a.auth == nil {
					a.auth = &rawAuth{pos: f.pos}
					a.auth.typ.pos = f.pos
				}
				propAuth(p, a.auth, strings.TrimPrefix(l.key, "authorization."), f)
			default:
				p.unknown(f.pos, "key %q in an api entry", l.key, apiFields)
			}
		}
		p.apis = append(p.apis, a)
	}
	for _, g := range sorted(groups["oAuth"]) {
		o := rawOAuth{fields: map[string]field{}, pos: Position{file, g.lines[0].line, 1}}
		for _, l := range g.lines {
			f := field{value: l.value, set: true, pos: Position{file, l.line, 1}}
			switch {
			case contains(oauthAttrs, l.key):
				o.fields[l.key] = f
			case strings.HasPrefix(l.key, "authorization."):
				if o.auth == nil {
					o.auth = &rawAuth{pos: f.pos}
					o.auth.typ.pos = f.pos
				}
				propAuth(p, o.auth, strings.TrimPrefix(l.key, "authorization."), f)
			case strings.HasPrefix(l.key, "additionalParams.") || strings.HasPrefix(l.key, "additionalParams["):
				name := strings.TrimPrefix(l.key, "additionalParams")
				name = strings.TrimPrefix(name, ".")
				name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
				o.params = append(o.params, Param{Name: name, Value: NewSecret(l.value)})
			default:
				p.unknown(f.pos, "key %q in an oAuth entry", l.key, oauthFields)
			}
		}
		p.oauths = append(p.oauths, o)
	}
	return p
}

func propAuth(p *parsed, au *rawAuth, key string, f field) {
	switch key {
	case "type":
		au.typ = f
	case "encodedCredentials":
		au.encodedCredentials = f
	case "id":
		au.id = f
	default:
		p.unknown(f.pos, "key %q in authorization", key, authFields)
	}
}
