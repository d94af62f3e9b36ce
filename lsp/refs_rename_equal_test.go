package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"golang.org/x/tools/txtar"
)

// TestReferencesEqualRename: on every marker archive, from every place a
// rename can start (each serviceId literal of a call, each entry's id and
// each <id>/<suffix> url), the references (declarations included) are
// exactly the places the rename edits; and each entry's code lens counts
// the scripts those references are in. Across the archives the
// comparisons must include a call in a script of another kind than the
// one asked from, and <id>/<suffix> urls in both XML files, so that the
// test cannot pass by comparing nothing.
func TestReferencesEqualRename(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no marker archives: %v", err)
	}
	var mu sync.Mutex
	seen := map[string]bool{} // what the comparisons covered
	compared := 0
	// What the archives covered together, once every one has run: the
	// archives run side by side (each its own directory and server, most
	// of the time waiting on it), so after the loop they have not yet.
	t.Cleanup(func() {
		for _, want := range []string{"other kind", "script-service-api.xml url", "script-handler-api.xml url"} {
			if !seen[want] {
				t.Errorf("no archive compared a rename covering a %s", want)
			}
		}
		if compared < 10 {
			t.Errorf("%d comparisons in all, want at least 10", compared)
		}
	})
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			t.Parallel()
			mine := map[string]bool{}
			n := checkRefsEqualRename(t, f, mine)
			mu.Lock()
			defer mu.Unlock()
			compared += n
			for k := range mine {
				seen[k] = true
			}
		})
	}
}

// checkRefsEqualRename runs one archive and returns how many starting
// places it compared.
func checkRefsEqualRename(t *testing.T, path string, seen map[string]bool) int {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var docs []*script
	var settingsRaw []byte
	for _, f := range ar.Files {
		switch {
		case f.Name == "settings.json":
			settingsRaw = f.Data
			continue
		case strings.HasPrefix(f.Name, "reload/"):
			continue
		}
		writeFiles(t, dir, map[string]string{f.Name: string(f.Data)})
		if strings.HasSuffix(f.Name, ".js") || isConfigDocument(f.Name) {
			docs = append(docs, &script{name: f.Name, u: uri.File(filepath.Join(dir, f.Name)), text: string(f.Data), m: newMapper(string(f.Data))})
		}
	}
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
	srv := newTestServer(t, opts)
	c := connect(t, srv, clientOptions{initOptions: initOptions, root: dir})
	c.waitFor("first status", func() bool { return len(c.statuses) > 0 })
	kindOf := map[string]string{} // script -> its kind
	for _, d := range docs {
		c.open(d.u, d.text)
		if strings.HasSuffix(d.name, ".js") {
			var info *DocumentInfo
			if err := c.call(MethodDocumentInfo, &DocumentInfoParams{TextDocument: protocol.TextDocumentIdentifier{URI: d.u}}, &info); err == nil && info != nil {
				kindOf[d.name] = string(info.Kind.Kind)
			}
		}
	}
	compared := 0
	done := map[string]bool{} // file:range of the targets already compared
	for _, d := range docs {
		for off := 0; off < len(d.text); off++ {
			if !idStart(d.text, off) {
				continue
			}
			pos := d.m.position(off)
			tdp := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: d.u}, Position: pos}
			var ph *protocol.PrepareRenamePlaceholder
			if err := c.call(protocol.MethodTextDocumentPrepareRename, &protocol.PrepareRenameParams{TextDocumentPositionParams: tdp}, &ph); err != nil || ph == nil {
				continue
			}
			key := fmt.Sprintf("%s:%v", d.name, ph.Range)
			if done[key] {
				continue
			}
			done[key] = true
			where := fmt.Sprintf("%s (%q at %d:%d)", d.name, ph.Placeholder, pos.Line+1, pos.Character+1)
			var locs []protocol.Location
			if err := c.call(protocol.MethodTextDocumentReferences, &protocol.ReferenceParams{TextDocumentPositionParams: tdp,
				Context: protocol.ReferenceContext{IncludeDeclaration: true}}, &locs); err != nil {
				t.Errorf("%s: references: %v", where, err)
				continue
			}
			var raw json.RawMessage
			if err := c.call(protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: tdp, NewName: "zz-renamed"}, &raw); err != nil {
				continue // refused (a serviceId built at run time, an escape): it edits nothing
			}
			var we protocol.WorkspaceEdit
			if err := protocol.Unmarshal(raw, &we); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			var refs, edits []string
			for _, l := range locs {
				refs = append(refs, locString(dir, l.URI, l.Range.Start)+"-"+fmt.Sprint(l.Range.End.Line+1, ":", l.Range.End.Character+1))
			}
			for _, dc := range we.DocumentChanges {
				td := dc.(*protocol.TextDocumentEdit)
				for _, e := range td.Edits {
					var r protocol.Range
					switch e := e.(type) {
					case *protocol.AnnotatedTextEdit:
						r = e.Range
					case *protocol.TextEdit:
						r = e.Range
					}
					name := locString(dir, td.TextDocument.URI, r.Start)
					edits = append(edits, name+"-"+fmt.Sprint(r.End.Line+1, ":", r.End.Character+1))
					file := strings.Split(name, ":")[0]
					switch {
					case strings.HasSuffix(file, ".js") && strings.HasSuffix(d.name, ".js") && kindOf[file] != kindOf[d.name]:
						seen["other kind"] = true
					case strings.HasSuffix(file, "script-service-api.xml") && strings.Contains(d.text[off:], "/"):
						seen["script-service-api.xml url"] = seen["script-service-api.xml url"] || urlEdit(dir, file, r)
					case strings.HasSuffix(file, "script-handler-api.xml"):
						seen["script-handler-api.xml url"] = seen["script-handler-api.xml url"] || urlEdit(dir, file, r)
					}
				}
			}
			sort.Strings(refs)
			sort.Strings(edits)
			if !slices.Equal(refs, edits) {
				t.Errorf("%s: references\n\t%q\nrename edits\n\t%q", where, refs, edits)
			}
			compared++
		}
	}
	// Each entry's code lens counts the scripts its references are in.
	for _, d := range docs {
		if !isConfigDocument(d.name) {
			continue
		}
		var lenses []protocol.CodeLens
		if err := c.call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: d.u}}, &lenses); err != nil {
			t.Fatal(err)
		}
		for _, l := range lenses {
			var locs []protocol.Location
			if err := c.call(protocol.MethodTextDocumentReferences, &protocol.ReferenceParams{
				TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: d.u}, Position: l.Range.Start},
			}, &locs); err != nil {
				t.Fatal(err)
			}
			scripts := map[uri.URI]bool{}
			for _, loc := range locs {
				if strings.HasSuffix(string(loc.URI), ".js") {
					scripts[loc.URI] = true
				}
			}
			want := "not called by any script"
			switch n := len(scripts); n {
			case 0:
			case 1:
				want = "1 script calls this"
			default:
				want = fmt.Sprintf("%d scripts call this", n)
			}
			if l.Command.Title != want {
				t.Errorf("%s:%d: code lens %q, but the references are in %d scripts", d.name, l.Range.Start.Line+1, l.Command.Title, len(scripts))
			}
		}
	}
	return compared
}

// idStart reports whether a serviceId may start at off: a letter or digit
// after anything that cannot be part of one.
func idStart(text string, off int) bool {
	isID := func(b byte) bool {
		return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '-' || b == '_' || b == '.'
	}
	return isID(text[off]) && text[off] != '-' && text[off] != '.' && (off == 0 || !isID(text[off-1]))
}

// urlEdit reports whether the edit at r of file (in dir) is in a url
// attribute (an <id>/<suffix> reference), not a serviceId attribute.
func urlEdit(dir, file string, r protocol.Range) bool {
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return false
	}
	lines := strings.Split(string(data), "\n")
	if int(r.Start.Line) >= len(lines) {
		return false
	}
	line := lines[r.Start.Line]
	m := newMapper(line)
	before := line[:m.offset(protocol.Position{Character: r.Start.Character})]
	return strings.HasSuffix(before, `url="`)
}
