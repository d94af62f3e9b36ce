package lsp

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/restls/restls/config"
	"github.com/restls/restls/hints"
)

// maxWorkspaceSymbols bounds one workspace/symbol answer.
const maxWorkspaceSymbols = 500

// documentSymbol outlines a script's api.rest.v1 calls ("GET crm
// /customers/{id}"), nested under the function they are in; for a
// configuration file, its api and oAuth entries.
func (s *session) documentSymbol(ctx context.Context, p *protocol.DocumentSymbolParams, d *document) (any, error) {
	out := []protocol.DocumentSymbol{}
	if d == nil {
		return out, nil
	}
	if isConfigDocument(d.path) {
		if m := s.navMapper(d.uri); m != nil {
			if ni := s.navIndexFor(ctx); ni != nil {
				for _, e := range entriesOf(ni, d.path) {
					if e.ID == "" {
						continue
					}
					r := entryRange(m, e.IDSpan, e.IDAt)
					kind, detail := protocol.SymbolKindObject, e.URL
					if e.OAuth {
						kind, detail = protocol.SymbolKindKey, "oAuth"
					}
					detail += overridden(e)
					out = append(out, protocol.DocumentSymbol{Name: e.ID, Detail: &detail, Kind: kind, Range: r, SelectionRange: r})
				}
			}
		}
		return out, nil
	}
	fn := -1 // index in out of the function the last call was in
	var fnRange hints.Range
	for _, c := range hints.CallSites(d.doc) {
		sym := protocol.DocumentSymbol{Name: callLabel(d.doc.Text(), c), Kind: protocol.SymbolKindMethod,
			Range: d.m.toRange(c.Call), SelectionRange: d.m.toRange(c.NameRange)}
		if c.IDRange.End > 0 {
			sym.SelectionRange = d.m.toRange(c.IDRange)
		}
		if c.Func == "" {
			fn = -1
			out = append(out, sym)
			continue
		}
		if fn < 0 || fnRange != c.FuncRange {
			out = append(out, protocol.DocumentSymbol{Name: c.Func, Kind: protocol.SymbolKindFunction,
				Range: d.m.toRange(c.FuncRange), SelectionRange: d.m.toRange(c.FuncRange)})
			fn, fnRange = len(out)-1, c.FuncRange
		}
		out[fn].Children = append(out[fn].Children, sym)
	}
	return out, nil
}

// callLabel is a call's outline entry: "GET crm /customers/{id}".
func callLabel(text string, c hints.CallSite) string {
	method := c.Method
	if method == "" {
		method = c.Name
	}
	id := c.ServiceID
	switch {
	case c.Dynamic:
		id = "(" + clipLabel(text[c.IDRange.Start:c.IDRange.End]) + ")"
	case c.IDRange.End == 0:
		id = "(no serviceId)"
	}
	label := method + " " + id
	if c.Path != "" {
		label += " " + c.Path
	}
	return label
}

func clipLabel(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// workspaceSymbol lists the serviceIds and oAuth ids whose id holds the
// query, each definition with its kinds and source.
func (s *session) workspaceSymbol(ctx context.Context, p *protocol.WorkspaceSymbolParams, _ struct{}) (any, error) {
	out := []protocol.WorkspaceSymbol{}
	if s.opts.ShowPath != nil {
		return out, nil
	}
	ni := s.navIndexFor(ctx)
	if ni == nil {
		return out, nil
	}
	syms, _ := ni.Index().Symbols(p.Query, maxWorkspaceSymbols)
	ms := s.newMappers(ni)
	for _, sym := range syms {
		e := sym.Entry
		kind := protocol.SymbolKindObject
		if e.OAuth {
			kind = protocol.SymbolKindKey
		}
		container := symbolContainer(e)
		out = append(out, protocol.WorkspaceSymbol{
			BaseSymbolInformation: protocol.BaseSymbolInformation{Name: e.ID, Kind: kind, ContainerName: &container},
			Location:              &protocol.Location{URI: hostPaths.fileURI(cleanAbs(e.Defined.File)), Range: entryRange(ms.config(e.Defined.File), e.IDSpan, e.IDAt)},
		})
	}
	return out, nil
}

// symbolContainer says what a definition is and where: "api ·
// scriptService, validationScript · script-service-api.xml".
func symbolContainer(e config.Entry) string {
	what := "api"
	if e.OAuth {
		what = "oAuth"
	}
	kinds := make([]string, len(e.Kinds))
	for i, k := range e.Kinds {
		kinds[i] = string(k)
	}
	return what + " · " + strings.Join(kinds, ", ") + " · " + filepath.Base(e.Defined.File) + overridden(e)
}

// overridden says for which kinds a later definition replaces e: "" when
// none does.
func overridden(e config.Entry) string {
	var ks []string
	for _, k := range e.Kinds {
		if !slices.Contains(e.InForce, k) {
			ks = append(ks, string(k))
		}
	}
	if len(ks) == 0 {
		return ""
	}
	return " (overridden for " + strings.Join(ks, ", ") + ")"
}

// isConfigDocument reports whether path is a configuration file by its
// name: application.yml/.yaml/.properties or an XML file. Scripts are
// never diagnosed as such documents.
func isConfigDocument(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yml", ".yaml", ".properties", ".xml":
		return true
	}
	return false
}
