package config

import (
	"bytes"
	"path/filepath"
	"strings"
	"sync"

	"github.com/restls/restls/textpos"
)

// Entries are every api and oAuth definition as written, for navigation
// (references, rename, symbols, code lens): the merged Registry keeps only
// the definition in force of each usable id, while navigation needs all of
// them (the ones a later source overrides, the broken ones) with the exact
// byte range of each id where it is written, so that an editor can change
// it. Loading keeps what they are built from; the first navigation request
// on a snapshot builds them, once (a fifth of a load's time with 10,000
// services, which every start and reload paid before any editor asked).

// Span is a byte range in a configuration file's text as read from disk.
// Found is false when the value could not be located exactly: written
// with an escape, folded over lines, or in a file decoded from another
// encoding. Such a value is shown but never edited.
type Span struct {
	Start, End int
	Found      bool
}

// Entry is one api or oAuth definition of a source.
type Entry struct {
	// OAuth is set for an oAuth definition, else the entry is an api.
	OAuth bool
	// ID is the serviceId (api) or the oAuth id, as read; "" when missing.
	ID      string
	Defined Position // the entry
	IDAt    Position // where the id is written (a line for .properties)
	IDSpan  Span
	// URL is the url as written (api); RefersTo and RefersToSpan are the
	// serviceId part of a <serviceId>/<suffix> url, when it has that form.
	URL          string
	RefersTo     string
	RefersToSpan Span
	// AuthType and OAuthRef are the api's authorization type and the
	// oAuth id it names, with where that id is written.
	AuthType     string
	OAuthRef     string
	OAuthRefSpan Span
	// Kinds are the script kinds that read the entry's source; InForce
	// those of them for which it is the definition the merge keeps (no
	// later source of the kind defines the same id).
	Kinds   []Kind
	InForce []Kind
}

// Entries returns every definition of every source read, in reading
// order (properties, then the service XML, then the handler XML), built
// on the first call. The caller must not modify it.
func (s *Snapshot) Entries() []Entry {
	if s == nil || s.entries == nil {
		return nil
	}
	return s.entries.get()
}

// lazyEntries builds a snapshot's entries on first use, then lets go of
// the parsed sources and their text.
type lazyEntries struct {
	once    sync.Once
	srcs    []entrySource
	entries []Entry
}

func (l *lazyEntries) get() []Entry {
	l.once.Do(func() {
		l.entries = buildEntries(l.srcs)
		l.srcs = nil
	})
	return l.entries
}

// entrySource is one parsed source with its text, for entries: of its
// api definitions only what an entry is made of (entryAPI), so that a
// snapshot nobody navigates keeps about half of what the parse made (the
// parse's positions each repeat the file's name, and the descriptions
// and credentials are no entry's): 1 MB less with 10,000 services, 2 MB
// of the language server's resident memory (docs/lsp.md, "Issue 34's
// acceptance").
type entrySource struct {
	file   string
	apis   []entryAPI
	oauths []rawOAuth
	data   []byte
	kinds  []Kind
}

// entryAPI is a rawAPI as an entry reads it.
type entryAPI struct {
	id, url, authType, oauthRef string
	pos, idPos, urlPos, refPos  lineCol
	idSet, refSet               bool
}

// lineCol is a Position without its file, which entrySource holds once:
// every position a parse records is in the parsed file, or is the zero
// Position of a value not found (a negative line keeps that it had no
// file). Lines and columns fit: input.ReadFile reads no file of 2 GB.
type lineCol struct{ line, col int32 }

func lineColOf(p Position) lineCol {
	if p.File == "" {
		return lineCol{^int32(p.Line), int32(p.RuneCol)}
	}
	return lineCol{int32(p.Line), int32(p.RuneCol)}
}

func (lc lineCol) in(file string) Position {
	if lc.line < 0 {
		return Position{Line: int(^lc.line), RuneCol: int(lc.col)}
	}
	return Position{File: file, Line: int(lc.line), RuneCol: int(lc.col)}
}

// newEntrySource keeps of p and its text what buildEntries reads.
func newEntrySource(p *parsed, data []byte, kinds []Kind) entrySource {
	if p == nil {
		return entrySource{}
	}
	apis := make([]entryAPI, len(p.apis))
	for i := range p.apis {
		a := &p.apis[i]
		e := entryAPI{id: a.serviceID.value, url: a.url.value, pos: lineColOf(a.pos), idPos: lineColOf(a.serviceID.pos),
			urlPos: lineColOf(a.url.pos), idSet: a.serviceID.set}
		if a.auth != nil {
			e.authType = a.auth.typ.value
			e.oauthRef, e.refPos, e.refSet = a.auth.id.value, lineColOf(a.auth.id.pos), a.auth.id.set
		}
		apis[i] = e
	}
	return entrySource{file: p.file, apis: apis, oauths: p.oauths, data: data, kinds: kinds}
}

// buildEntries lists the entries of the sources, in reading order.
func buildEntries(srcs []entrySource) []Entry {
	n := 0
	for _, src := range srcs {
		n += len(src.apis) + len(src.oauths)
	}
	out := make([]Entry, 0, n)
	for _, src := range srcs {
		if src.apis == nil && src.oauths == nil {
			continue
		}
		loc := newLocator(src.file, src.data)
		for i := range src.apis {
			a := &src.apis[i]
			e := Entry{ID: a.id, Defined: a.pos.in(src.file), IDAt: a.idPos.in(src.file), URL: a.url, Kinds: src.kinds}
			if a.idSet {
				e.IDSpan = loc.value(e.IDAt, "serviceId", a.id)
			}
			if ref, _, ok := strings.Cut(a.url, "/"); ok && ref != "" && !isAbsolute(a.url) && !strings.Contains(ref, ":") {
				e.RefersTo = ref
				if sp := loc.value(a.urlPos.in(src.file), "url", a.url); sp.Found {
					e.RefersToSpan = Span{sp.Start, sp.Start + len(ref), true}
				}
			}
			e.AuthType = a.authType
			if a.refSet {
				e.OAuthRef = a.oauthRef
				e.OAuthRefSpan = loc.value(a.refPos.in(src.file), "id", a.oauthRef)
			}
			out = append(out, e)
		}
		for i := range src.oauths {
			o := &src.oauths[i]
			f := o.get("id")
			e := Entry{OAuth: true, ID: f.value, Defined: o.pos, IDAt: f.pos, Kinds: src.kinds}
			if f.set {
				e.IDSpan = loc.value(f.pos, "id", f.value)
			}
			out = append(out, e)
		}
	}
	// InForce: per kind, the last api (or oAuth) definition of each id.
	for _, k := range Kinds {
		last := map[[2]string]int{}
		for i := range out {
			if out[i].ID != "" && hasKind(out[i].Kinds, k) {
				last[[2]string{boolKey(out[i].OAuth), out[i].ID}] = i
			}
		}
		for _, i := range last {
			out[i].InForce = append(out[i].InForce, k)
		}
	}
	return out
}

func boolKey(b bool) string {
	if b {
		return "oAuth"
	}
	return "api"
}

func hasKind(ks []Kind, k Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// locator finds the exact byte range of a value near a recorded position,
// by the format of the file: the positions the readers record are those
// of the key (YAML), the line (.properties) or the element (XML).
type locator struct {
	data   []byte
	m      *textpos.Mapper
	format byte // 'y' YAML, 'p' properties, 'x' XML
}

func newLocator(file string, data []byte) *locator {
	l := &locator{data: data, m: textpos.NewFile(string(data)), format: 'y'}
	switch strings.ToLower(filepath.Ext(file)) {
	case ".properties":
		l.format = 'p'
	case ".xml":
		l.format = 'x'
	}
	return l
}

// lineEnd returns the offset of the end of the line holding off.
func (l *locator) lineEnd(off int) int {
	if i := bytes.IndexByte(l.data[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(l.data)
}

// value returns the span of value, written for key at pos.
func (l *locator) value(pos Position, key, value string) Span {
	if pos.Line < 1 || pos.Line > l.m.Lines() || value == "" {
		return Span{}
	}
	lineStart := int(l.m.LineStart(pos.Line))
	off := int(l.m.OffsetOfRunes(pos.RunePos()))
	var start int
	switch l.format {
	case 'p':
		start = l.propValue(lineStart)
	case 'x':
		start = l.xmlValue(off, key)
	default:
		start = l.yamlValue(off)
	}
	if start < 0 || start+len(value) > len(l.data) || string(l.data[start:start+len(value)]) != value {
		return Span{}
	}
	end := start + len(value)
	// The value must be the whole token: what follows ends it.
	if end < len(l.data) {
		switch c := l.data[end]; {
		case l.format == 'y' && (c == '"' || c == '\'' || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == '}' || c == ']'):
		case l.format == 'p' && (c == '\r' || c == '\n' || c == ' ' || c == '\t'):
		case l.format == 'x' && (c == '"' || c == '\'' || c == '<' || c == ' ' || c == '\t' || c == '\r' || c == '\n'):
		default:
			return Span{}
		}
	}
	return Span{start, end, true}
}

// yamlValue: from a key, past the ':' and blanks, and past an opening
// quote.
func (l *locator) yamlValue(off int) int {
	end := l.lineEnd(off)
	i := bytes.IndexByte(l.data[off:end], ':')
	if i < 0 {
		return -1
	}
	j := off + i + 1
	for j < end && (l.data[j] == ' ' || l.data[j] == '\t') {
		j++
	}
	if j < end && (l.data[j] == '"' || l.data[j] == '\'') {
		j++
	}
	return j
}

// propValue: the value of a .properties line, after the key and its
// separator (as splitProperties reads them).
func (l *locator) propValue(lineStart int) int {
	end := l.lineEnd(lineStart)
	i := lineStart
	for i < end && (l.data[i] == ' ' || l.data[i] == '\t' || l.data[i] == '\f') {
		i++
	}
	for i < end {
		c := l.data[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	for i < end && (l.data[i] == ' ' || l.data[i] == '\t' || l.data[i] == '\f') {
		i++
	}
	if i < end && (l.data[i] == '=' || l.data[i] == ':') {
		i++
	}
	for i < end && (l.data[i] == ' ' || l.data[i] == '\t' || l.data[i] == '\f') {
		i++
	}
	return min(i, end)
}

// xmlValue: the value of attribute key in the start tag at off, or, when
// the tag has no such attribute and is the element key itself, its text.
func (l *locator) xmlValue(off int, key string) int {
	d := l.data
	if off >= len(d) || d[off] != '<' {
		return -1
	}
	i := off + 1
	for i < len(d) && isXMLNameByte(d[i]) {
		i++
	}
	tag := string(d[off+1 : i])
	for i < len(d) {
		for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n') {
			i++
		}
		if i >= len(d) || d[i] == '>' || d[i] == '/' {
			break
		}
		ns := i
		for i < len(d) && isXMLNameByte(d[i]) {
			i++
		}
		name := string(d[ns:i])
		for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n' || d[i] == '=') {
			i++
		}
		if i >= len(d) || (d[i] != '"' && d[i] != '\'') {
			return -1
		}
		q := d[i]
		vs := i + 1
		k := bytes.IndexByte(d[vs:], q)
		if k < 0 {
			return -1
		}
		if name == key {
			for vs < len(d) && (d[vs] == ' ' || d[vs] == '\t') {
				vs++
			}
			return vs
		}
		i = vs + k + 1
	}
	if tag != key || i >= len(d) || d[i] != '>' {
		return -1
	}
	i++
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n') {
		i++
	}
	return i
}

func isXMLNameByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80
}

// loadEntries keeps the sources LoadWith parsed, for Entries.
func loadEntries(props []*parsed, propData [][]byte, serviceXML *parsed, serviceData []byte, handlerXML *parsed, handlerData []byte) *lazyEntries {
	var service, handler []Kind
	for _, k := range Kinds {
		if k.UsesHandlerXML() {
			handler = append(handler, k)
		} else {
			service = append(service, k)
		}
	}
	srcs := make([]entrySource, 0, len(props)+2)
	for i, p := range props {
		srcs = append(srcs, newEntrySource(p, propData[i], Kinds))
	}
	srcs = append(srcs, newEntrySource(serviceXML, serviceData, service), newEntrySource(handlerXML, handlerData, handler))
	return &lazyEntries{srcs: srcs}
}
