package lsp

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
)

// MethodStatus is the custom notification that tells editors (status bars)
// what each script kind's registry holds, or why it holds nothing.
const MethodStatus = "restls/status"

// Status is the payload of restls/status.
type Status struct {
	Kinds []KindStatus `json:"kinds"`
	// Sources are the configuration sources in use.
	Sources config.Sources `json:"sources"`
	// Problems counts configuration diagnostics by severity name.
	Problems map[string]int `json:"problems"`
}

// KindStatus is the registry state of one script kind.
type KindStatus struct {
	Kind config.Kind `json:"kind"`
	// Services is the number of usable serviceIds.
	Services int `json:"services"`
	// Hints reports whether serviceId hints are offered; false when the
	// registry failed to load.
	Hints bool `json:"hints"`
	// Message is one line for a status bar: the count, or why there is none.
	Message string `json:"message"`
}

// statusOf is the status of snap, its paths as show displays them.
func statusOf(snap *config.Snapshot, show PathDisplay) Status {
	st := Status{Sources: show.Sources(snap.Sources), Problems: map[string]int{}}
	for _, d := range snap.Diagnostics() {
		st.Problems[d.Severity.String()]++
	}
	for _, k := range config.Kinds {
		reg := snap.For(k)
		ks := KindStatus{Kind: k, Services: reg.Len(), Hints: usable(reg) != nil}
		ks.Message = show.Text(kindMessage(reg))
		st.Kinds = append(st.Kinds, ks)
	}
	return st
}

func kindMessage(reg *config.Registry) string {
	errs := 0
	var firstErr *config.Diagnostic
	for i, d := range reg.Diagnostics {
		if d.Severity == config.SeverityError {
			errs++
			if firstErr == nil {
				firstErr = &reg.Diagnostics[i]
			}
		}
	}
	switch {
	case reg.Len() > 0 && errs == 0:
		return fmt.Sprintf("%d services", reg.Len())
	case reg.Len() > 0:
		return fmt.Sprintf("%d services, %d configuration errors", reg.Len(), errs)
	case !reg.Loaded && len(reg.Diagnostics) > 0:
		return "no serviceId hints: " + reg.Diagnostics[0].String()
	case !reg.Loaded:
		return "no serviceId hints: no configuration found"
	case firstErr != nil:
		return "no serviceId hints: " + firstErr.String()
	default:
		return "0 services: the configuration declares none"
	}
}

// publishConfig publishes the registry's diagnostics on the configuration
// files themselves (clearing files that no longer have any), then the
// status notification.
func (s *session) publishConfig(ctx context.Context) {
	snap := s.snapshot()
	byFile := map[string][]config.Diagnostic{}
	for _, d := range snap.Diagnostics() {
		if d.File == "" || s.opts.ShowPath != nil {
			// A client shown other paths gets no diagnostics on the files
			// themselves: their URIs would be the real paths.
			continue
		}
		if fi, err := os.Stat(d.File); err == nil && fi.IsDir() {
			continue // "no configuration found in <dir>": status says it
		}
		byFile[d.File] = append(byFile[d.File], d)
	}
	published := map[uri.URI]bool{}
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		u := fileURI(cleanAbs(f))
		published[u] = true
		m := s.configMapper(u, f)
		out := make([]protocol.Diagnostic, 0, len(byFile[f]))
		for _, d := range byFile[f] {
			out = append(out, configDiagnostic(m, d))
		}
		s.notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: out})
	}
	s.mu.Lock()
	var clear []uri.URI
	for u := range s.configURIs {
		if !published[u] {
			clear = append(clear, u)
		}
	}
	s.configURIs = published
	s.mu.Unlock()
	for _, u := range clear {
		s.notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{}})
	}
	s.notify(ctx, MethodStatus, statusOf(snap, NewPathDisplay(s.opts.ShowPath, snap.Sources)))
}

// configMapper maps positions in a configuration file: the open buffer if
// the editor has it, else the file on disk.
func (s *session) configMapper(u uri.URI, path string) *mapper {
	s.mu.Lock()
	d := s.docs[u]
	s.mu.Unlock()
	if d != nil {
		return d.m
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return newMapper("")
	}
	return newMapper(string(data))
}

// configDiagnostic converts a registry diagnostic (1-based line, byte
// column) to the rest of the line it points at.
func configDiagnostic(m *mapper, d config.Diagnostic) protocol.Diagnostic {
	var r protocol.Range
	if d.Line > 0 && d.Line-1 < len(m.lines) {
		l := d.Line - 1
		start := m.lines[l]
		end := m.lineEnd(l)
		off := start
		if d.Column > 0 {
			off = min(start+d.Column-1, end)
		}
		if off == end && off > start {
			off = start
		}
		r = protocol.Range{Start: m.position(off), End: m.position(end)}
	}
	msg := d.Message
	if d.ServiceID != "" && !strings.Contains(msg, d.ServiceID) {
		msg = "serviceId " + d.ServiceID + ": " + msg
	}
	return protocol.Diagnostic{
		Range:    r,
		Severity: configSeverity(d.Severity),
		Code:     protocol.String(d.Code),
		Source:   protocol.NewOptional("restls"),
		Message:  protocol.String(msg),
	}
}

func configSeverity(s config.Severity) protocol.DiagnosticSeverity {
	switch s {
	case config.SeverityError:
		return protocol.DiagnosticSeverityError
	case config.SeverityWarning:
		return protocol.DiagnosticSeverityWarning
	default:
		return protocol.DiagnosticSeverityInformation
	}
}
