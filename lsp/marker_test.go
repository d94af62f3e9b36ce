package lsp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"golang.org/x/tools/txtar"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// Marker tests. Each lsp/testdata/*.txt is a txtar archive holding a tiny
// workspace: configuration files, optional settings.json (sent as
// initializationOptions; relative paths resolve against the archive root)
// an optional restls.yaml (its timeLimits reach the server's session, as
// restls serve reads them) and *.js scripts whose comments carry
// expectations:
//
//	//@complete(pos, "label", "!absent", ...)   completion at pos has these labels and not the "!" ones; none = no items
//	//@hover(pos, "substring", "!absent", ...)  hover at pos contains each substring and not the "!" ones; none = no hover
//	//@signature(pos, "label substring", N)     signature help at pos, active parameter N; none = no help
//	//@diag(pos, code, "message substring"?)    a diagnostic with code starts at pos
//	//@fix(pos, "title substring", "line")      a quick fix at pos turns the line into "line"
//	//@definition(pos, "file", line)           go to definition at pos opens file (relative to the archive) at line (1-based); none = no definition
//	//@kind(pos, kind, source, "glob"?)         restls/documentInfo says the script is of kind, decided by source (directive, kindMap with glob, default)
//
// and the navigation markers of marker_nav_test.go (refs, rename,
// renamefail, symbols, wsymbols, lens, inlay). Configuration files
// (.yml, .yaml, .properties, .xml) carry markers too, written
// "#@name(...)" (in XML, alone in a comment on the line below:
// "<!-- #@name(...) -->"); they are opened, and their diagnostics are
// checked when they carry diag markers (then every one must be expected).
//
// pos is a string found in the code before the comment; "|" in it marks the
// cursor (default: the start of the match). A marker comment alone on a line
// applies to the line above, for half-typed code where a comment on the same
// line would change the meaning. Every diagnostic must be expected by a diag
// marker. Sections named reload/<path> replace <path> on disk after the first
// round; the configuration watcher must notice, and markers named
// reloaded.complete, reloaded.diag, ... are checked after the reload (the
// plain ones before it).
func TestMarkers(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no marker tests: %v", err)
	}
	for _, f := range files {
		// Each archive has its own directory and server, and spends most
		// of its time waiting on them: side by side (6.8 s alone, with
		// 0.35 s of CPU, one after the other).
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			t.Parallel()
			runMarkerFile(t, f)
		})
	}
}

type marker struct {
	name  string // complete, hover, ...; "reloaded." prefix for after the reload
	args  []string
	bare  []bool // args[i] was a bare word (code, number, none)
	file  string
	line  int // 0-based line the marker applies to
	where string
}

type script struct {
	name string
	u    uri.URI
	text string
	m    *mapper
}

func runMarkerFile(t *testing.T, path string) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var scripts, configs []*script
	var markers []marker
	reload := map[string]string{}
	var settingsRaw []byte
	var project *workspace.Project // an archive's restls.yaml: its timeLimits
	waitAPIs := false              // API descriptions or recorded answers to wait for
	loadedAt := 0                  // seq of the status saying they are loaded
	for _, f := range ar.Files {
		switch {
		case f.Name == "settings.json":
			settingsRaw = f.Data
			continue
		case f.Name == workspace.FileName:
			project = workspace.ParseProject(f.Name, f.Data)
			if project.HasErrors() {
				t.Fatalf("restls.yaml: %v", project.Diagnostics)
			}
		case strings.HasPrefix(f.Name, "reload/"):
			reload[strings.TrimPrefix(f.Name, "reload/")] = string(f.Data)
			continue
		}
		writeFiles(t, dir, map[string]string{f.Name: string(f.Data)})
		waitAPIs = waitAPIs || strings.Contains(f.Name, ".mock.")
		if strings.HasSuffix(f.Name, ".js") {
			text := string(f.Data)
			scripts = append(scripts, &script{name: f.Name, u: uri.File(filepath.Join(dir, f.Name)), text: text, m: newMapper(text)})
			ms, err := parseMarkers(f.Name, text)
			if err != nil {
				t.Fatal(err)
			}
			markers = append(markers, ms...)
		}
		if isConfigDocument(f.Name) && strings.Contains(string(f.Data), "#@") {
			text := string(f.Data)
			configs = append(configs, &script{name: f.Name, u: uri.File(filepath.Join(dir, f.Name)), text: text, m: newMapper(text)})
			ms, err := parseMarkers(f.Name, text)
			if err != nil {
				t.Fatal(err)
			}
			markers = append(markers, ms...)
		}
	}
	waitAPIs = waitAPIs || strings.Contains(string(settingsRaw), `"openapi"`)
	opts := Options{PollInterval: 10 * time.Millisecond}
	var initOptions any
	if settingsRaw != nil {
		var set map[string]any
		if err := json.Unmarshal(settingsRaw, &set); err != nil {
			t.Fatalf("settings.json: %v", err)
		}
		initOptions = set
	} else {
		opts.Sources.ConfigRoot = filepath.Join(dir, "config")
	}
	if project != nil {
		// The server's session, as restls serve makes it from the file.
		opts.Session = workspace.NewSession(workspace.SessionOptions{Sources: opts.Sources, TimeLimits: project.TimeLimits, EngineLevel: project.EngineLevel,
			DescriptionDelay: workspace.FirstLoadDelay})
	}
	srv := newTestServer(t, opts)
	c := connect(t, srv, clientOptions{initOptions: initOptions, root: dir})
	c.waitFor("first status", func() bool { return len(c.statuses) > 0 })
	for _, s := range append(slices.Clip(scripts), configs...) {
		c.open(s.u, s.text)
	}
	if waitAPIs {
		// Descriptions and recorded answers load in the background: wait
		// for the status that says they are all done.
		c.waitFor("API descriptions loaded", func() bool {
			st := c.statuses[len(c.statuses)-1]
			for _, a := range st.OpenAPI {
				if a.State == "loading" {
					return false
				}
			}
			return len(st.OpenAPI) > 0
		})
		// The scripts are diagnosed again after that status: check those
		// diagnostics, not ones from before the load.
		c.mu.Lock()
		loadedAt = c.statusAt
		c.mu.Unlock()
	}
	check := func(phase string, since int) {
		byName := map[string]*script{}
		// The diagnostics published after since first: code actions (fix
		// markers) answer from the diagnostics the server holds, which are
		// those of the load only once it has published them.
		published := map[string][]protocol.Diagnostic{}
		for _, s := range scripts {
			byName[s.name] = s
			published[s.name] = c.diagnostics(s.u, 1, since)
		}
		for _, s := range configs {
			byName[s.name] = s
		}
		var diagMarkers = map[string][]marker{}
		for _, m := range markers {
			name, ok := strings.CutPrefix(m.name, phase)
			if !ok || (phase == "" && strings.HasPrefix(m.name, "reloaded.")) {
				continue
			}
			m.name = name
			s := byName[m.file]
			if m.name == "diag" {
				diagMarkers[m.file] = append(diagMarkers[m.file], m)
				continue
			}
			checkMarker(t, c, s, m)
		}
		for _, s := range scripts {
			checkDiagnostics(t, s, published[s.name], diagMarkers[s.name])
		}
		// A configuration file's diagnostics are checked when it has diag
		// markers; service-unused comes once the project index is built,
		// so the publish that has as many as expected is waited for.
		for _, s := range configs {
			want := diagMarkers[s.name]
			if len(want) == 0 {
				continue
			}
			var got []protocol.Diagnostic
			c.waitFor("diagnostics of "+s.name, func() bool {
				p, ok := c.diags[s.u]
				if !ok || p.seq < since {
					return false
				}
				got = p.params.Diagnostics
				return len(got) >= len(want)
			})
			checkDiagnostics(t, s, got, want)
		}
	}
	check("", loadedAt)
	if len(reload) == 0 {
		return
	}
	c.mu.Lock()
	nStatus := len(c.statuses)
	c.mu.Unlock()
	writeFiles(t, dir, reload)
	c.waitFor("status after reload", func() bool { return len(c.statuses) > nStatus })
	c.mu.Lock()
	since := c.statusAt
	c.mu.Unlock()
	check("reloaded.", since)
}

func checkMarker(t *testing.T, c *testClient, s *script, m marker) {
	t.Helper()
	pos, off, err := locate(s, m)
	if err != nil {
		t.Errorf("%s: %v", m.where, err)
		return
	}
	td := protocol.TextDocumentIdentifier{URI: s.u}
	tdp := protocol.TextDocumentPositionParams{TextDocument: td, Position: pos}
	rest := m.args[1:]
	none := len(rest) == 1 && m.bare[1] && rest[0] == "none"
	switch m.name {
	case "complete":
		l := c.completion(s.u, pos)
		got := labels(l)
		if none || len(rest) == 0 {
			if len(got) > 0 {
				t.Errorf("%s: completion = %q, want none", m.where, got)
			}
			return
		}
		for _, want := range rest {
			if absent, ok := strings.CutPrefix(want, "!"); ok {
				if slices.Contains(got, absent) {
					t.Errorf("%s: completion has %q, want it absent; got %q", m.where, absent, got)
				}
			} else if !slices.Contains(got, want) {
				t.Errorf("%s: completion lacks %q; got %q", m.where, want, got)
			}
		}
		for _, it := range l.Items {
			te, ok := it.TextEdit.(*protocol.TextEdit)
			if !ok {
				t.Errorf("%s: item %q has no TextEdit", m.where, it.Label)
				continue
			}
			start, end := s.m.fromRange(te.Range)
			if start > off || end < off || te.Range.Start.Line != pos.Line || te.Range.End.Line != pos.Line {
				t.Errorf("%s: item %q replaces %+v, which does not hold the cursor %+v", m.where, it.Label, te.Range, pos)
			}
		}
	case "hover":
		var h *protocol.Hover
		if err := c.call(protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: tdp}, &h); err != nil {
			t.Errorf("%s: hover: %v", m.where, err)
			return
		}
		if none {
			if h != nil {
				t.Errorf("%s: hover = %+v, want none", m.where, h.Contents)
			}
			return
		}
		if h == nil {
			t.Errorf("%s: no hover", m.where)
			return
		}
		mc, _ := h.Contents.(*protocol.MarkupContent)
		if mc == nil {
			t.Errorf("%s: hover contents %T, want markup", m.where, h.Contents)
			return
		}
		for _, want := range rest {
			if absent, ok := strings.CutPrefix(want, "!"); ok {
				if strings.Contains(mc.Value, absent) {
					t.Errorf("%s: hover contains %q:\n%s", m.where, absent, mc.Value)
				}
			} else if !strings.Contains(mc.Value, want) {
				t.Errorf("%s: hover lacks %q:\n%s", m.where, want, mc.Value)
			}
		}
		if h.Range != nil {
			start, end := s.m.fromRange(*h.Range)
			if start > off || end < off {
				t.Errorf("%s: hover range %+v does not hold the cursor", m.where, *h.Range)
			}
		}
	case "signature":
		var sh *protocol.SignatureHelp
		if err := c.call(protocol.MethodTextDocumentSignatureHelp, &protocol.SignatureHelpParams{TextDocumentPositionParams: tdp}, &sh); err != nil {
			t.Errorf("%s: signatureHelp: %v", m.where, err)
			return
		}
		if none {
			if sh != nil {
				t.Errorf("%s: signature help %+v, want none", m.where, sh)
			}
			return
		}
		if sh == nil || len(sh.Signatures) != 1 {
			t.Errorf("%s: signature help = %+v, want one signature", m.where, sh)
			return
		}
		if !strings.Contains(sh.Signatures[0].Label, rest[0]) {
			t.Errorf("%s: signature %q lacks %q", m.where, sh.Signatures[0].Label, rest[0])
		}
		if len(rest) > 1 {
			want, _ := strconv.Atoi(rest[1])
			if got, ok := sh.ActiveParameter.Get(); !ok || int(got) != want {
				t.Errorf("%s: active parameter %v, want %d", m.where, sh.ActiveParameter, want)
			}
		}
	case "fix":
		var actions []json.RawMessage
		if err := c.call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
			TextDocument: td, Range: protocol.Range{Start: pos, End: pos},
		}, &actions); err != nil {
			t.Errorf("%s: codeAction: %v", m.where, err)
			return
		}
		var titles []string
		for _, raw := range actions {
			var a protocol.CodeAction
			if err := protocol.Unmarshal(raw, &a); err != nil {
				t.Errorf("%s: bad code action %s: %v", m.where, raw, err)
				continue
			}
			titles = append(titles, a.Title)
			if !strings.Contains(a.Title, rest[0]) {
				continue
			}
			if a.Edit == nil || len(a.Edit.Changes[s.u]) == 0 {
				t.Errorf("%s: action %q has no edits", m.where, a.Title)
				return
			}
			got := applyEdits(s, a.Edit.Changes[s.u])
			line := codePart(strings.Split(got, "\n")[pos.Line])
			if line != rest[1] {
				t.Errorf("%s: after %q the line is\n\t%q\nwant\n\t%q", m.where, a.Title, line, rest[1])
			}
			return
		}
		t.Errorf("%s: no code action titled like %q; got %q", m.where, rest[0], titles)
	case "definition":
		var locs []protocol.Location
		if err := c.call(protocol.MethodTextDocumentDefinition, &protocol.DefinitionParams{TextDocumentPositionParams: tdp}, &locs); err != nil {
			t.Errorf("%s: definition: %v", m.where, err)
			return
		}
		if none {
			if len(locs) > 0 {
				t.Errorf("%s: definition = %+v, want none", m.where, locs)
			}
			return
		}
		if len(locs) != 1 || len(rest) != 2 {
			t.Errorf("%s: definition = %+v, want one location", m.where, locs)
			return
		}
		dir := filepath.Dir(s.u.FsPath())
		want := uri.File(filepath.Join(dir, rest[0]))
		line, _ := strconv.Atoi(rest[1])
		if locs[0].URI != want || int(locs[0].Range.Start.Line) != line-1 {
			t.Errorf("%s: definition at %s:%d, want %s:%d", m.where, locs[0].URI, locs[0].Range.Start.Line+1, want, line)
		}
	case "kind":
		var info *DocumentInfo
		if err := c.call(MethodDocumentInfo, &DocumentInfoParams{TextDocument: td}, &info); err != nil || info == nil {
			t.Errorf("%s: documentInfo: %v, %v", m.where, info, err)
			return
		}
		want := config.KindDecision{Kind: config.Kind(rest[0]), Source: config.KindSource(rest[1])}
		if len(rest) > 2 {
			want.Glob = rest[2]
		}
		if info.Kind != want {
			t.Errorf("%s: documentInfo kind = %+v, want %+v", m.where, info.Kind, want)
		}
		// The fixture names are the ones a dry run looks for.
		base := strings.TrimSuffix(s.u.FsPath(), filepath.Ext(s.u.FsPath()))
		if wantFix := []string{base + ".mock.yaml", base + ".mock.json"}; !slices.Equal(info.Fixtures, wantFix) {
			t.Errorf("%s: documentInfo fixtures = %q, want %q", m.where, info.Fixtures, wantFix)
		}
	default:
		if !checkNavMarker(t, c, s, m, pos, off) {
			t.Errorf("%s: unknown marker %q", m.where, m.name)
		}
	}
}

func checkDiagnostics(t *testing.T, s *script, got []protocol.Diagnostic, want []marker) {
	t.Helper()
	used := make([]bool, len(got))
	for _, m := range want {
		pos, _, err := locate(s, m)
		if err != nil {
			t.Errorf("%s: %v", m.where, err)
			continue
		}
		found := false
		for i, d := range got {
			if used[i] || d.Range.Start != pos || d.Code != protocol.String(m.args[1]) {
				continue
			}
			if len(m.args) > 2 {
				msg, _ := d.Message.(protocol.String)
				if !strings.Contains(string(msg), m.args[2]) {
					continue
				}
			}
			used[i], found = true, true
			break
		}
		if !found {
			t.Errorf("%s: no diagnostic %s at %+v; got %s", m.where, m.args[1], pos, describe(got))
		}
	}
	for i, d := range got {
		if !used[i] {
			t.Errorf("%s: unexpected diagnostic at %d:%d %v: %v", s.name, d.Range.Start.Line+1, d.Range.Start.Character+1, d.Code, d.Message)
		}
	}
}

func describe(ds []protocol.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "\n\t%d:%d %v %v", d.Range.Start.Line+1, d.Range.Start.Character+1, d.Code, d.Message)
	}
	return b.String()
}

// applyEdits applies non-overlapping edits to the script text.
func applyEdits(s *script, edits []protocol.TextEdit) string {
	type span struct {
		start, end int
		text       string
	}
	var spans []span
	for _, e := range edits {
		st, en := s.m.fromRange(e.Range)
		spans = append(spans, span{st, en, e.NewText})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start > spans[j].start })
	text := s.text
	for _, sp := range spans {
		text = text[:sp.start] + sp.text + text[sp.end:]
	}
	return text
}

// codePart is a line without its marker comment and trailing space.
func codePart(line string) string {
	if i := strings.Index(line, "//@"); i >= 0 {
		line = line[:i]
	}
	if i := strings.Index(line, "#@"); i >= 0 {
		line = strings.TrimSuffix(strings.TrimRight(line[:i], " \t"), "<!--")
	}
	return strings.TrimRight(line, " \t\r")
}

// locate finds the marker's position needle in its line.
func locate(s *script, m marker) (protocol.Position, int, error) {
	if len(m.args) == 0 {
		return protocol.Position{}, 0, fmt.Errorf("marker without a position")
	}
	lines := strings.SplitAfter(s.text, "\n")
	if m.line >= len(lines) {
		return protocol.Position{}, 0, fmt.Errorf("line %d out of range", m.line+1)
	}
	code := codePart(lines[m.line])
	needle := m.args[0]
	at := strings.Index(needle, "|")
	if at >= 0 {
		needle = needle[:at] + needle[at+1:]
	} else {
		at = 0
	}
	i := strings.Index(code, needle)
	if i < 0 {
		return protocol.Position{}, 0, fmt.Errorf("%q not found in line %d %q", needle, m.line+1, code)
	}
	if j := strings.Index(code[i+1:], needle); j >= 0 {
		return protocol.Position{}, 0, fmt.Errorf("%q occurs twice in line %d; make it unique", needle, m.line+1)
	}
	lineStart := 0
	for _, l := range lines[:m.line] {
		lineStart += len(l)
	}
	off := lineStart + i + at
	return s.m.position(off), off, nil
}

// parseMarkers reads every //@name(args) in text.
func parseMarkers(file, text string) ([]marker, error) {
	var out []marker
	prefix := "//@"
	if isConfigDocument(file) {
		prefix = "#@"
	}
	lines := strings.Split(text, "\n")
	for n, line := range lines {
		i := strings.Index(line, prefix)
		if i < 0 {
			continue
		}
		target := n
		if before := strings.TrimSpace(line[:i]); before == "" || before == "<!--" {
			// Alone on its line (in XML, alone in a comment).
			target = n - 1
			for target > 0 && strings.TrimSpace(codePart(lines[target])) == "" {
				target--
			}
		}
		rest := strings.TrimSuffix(strings.TrimSpace(line[i+len(prefix)-1:]), "-->")
		for {
			rest = strings.TrimSpace(rest)
			if rest == "" {
				break
			}
			rest = strings.TrimPrefix(rest, "//")
			rest = strings.TrimPrefix(rest, "#")
			rest = strings.TrimPrefix(rest, "@")
			open := strings.IndexByte(rest, '(')
			if open < 0 {
				return nil, fmt.Errorf("%s:%d: marker without (", file, n+1)
			}
			m := marker{name: rest[:open], file: file, line: target, where: fmt.Sprintf("%s:%d", file, n+1)}
			r := rest[open+1:]
			for {
				r = strings.TrimLeft(r, " ,")
				if r == "" {
					return nil, fmt.Errorf("%s:%d: unclosed marker", file, n+1)
				}
				if r[0] == ')' {
					r = r[1:]
					break
				}
				var arg string
				bare := false
				switch r[0] {
				case '"', '`':
					q, err := strconv.QuotedPrefix(r)
					if err != nil {
						return nil, fmt.Errorf("%s:%d: bad string: %v", file, n+1, err)
					}
					arg, _ = strconv.Unquote(q)
					r = r[len(q):]
				default:
					end := strings.IndexAny(r, ",) ")
					if end < 0 {
						end = len(r)
					}
					arg, bare = r[:end], true
					r = r[end:]
				}
				m.args = append(m.args, arg)
				m.bare = append(m.bare, bare)
			}
			out = append(out, m)
			rest = r
		}
	}
	return out, nil
}
