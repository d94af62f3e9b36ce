package lsp

import (
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	"github.com/restls/restls/textpos"
	"github.com/restls/restls/workspace"
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
	// OpenAPI are the API descriptions in use and their state.
	OpenAPI []APIStatus `json:"openapi,omitempty"`
	// Project is the project file (restls.yaml) in force, under the
	// editor's settings; absent when there is none.
	Project string `json:"project,omitempty"`
	// Environments are the environments the editor may pick, sorted: the
	// project file's and the editor's own (the "environments" setting).
	// Environment is the one in force for the session (the
	// "environment" setting when it names one, else the project file's
	// default or --env); absent when none is: the plain settings.
	// Editors offer these and name this one; they decide nothing.
	Environments []string `json:"environments,omitempty"`
	Environment  string   `json:"environment,omitempty"`
	Files
}

// Files say which files the server treats as platform scripts and as
// test files, for an editor to select, watch and search with: it keeps
// no patterns of its own. restls/status and the initialize result
// (capabilities.experimental.restls) carry them.
type Files struct {
	// Scripts are the globs of platform scripts in force: the "include"
	// setting, else workspace.DefaultScriptGlobs. restls/documentInfo's
	// script says whether one document matches.
	Scripts []string `json:"scripts"`
	// TestFiles is the glob of restls test's test files
	// (workspace.TestFileGlob).
	TestFiles string `json:"testFiles"`
	// Skip is the glob of what is below the directories no project walk
	// enters (input.SkipDirGlob: hidden ones and node_modules): an
	// editor's searches for scripts and test files leave it out, as
	// restls check, restls test and the project index do.
	Skip string `json:"skip"`
}

// DefaultFiles are the Files of the default settings (restls version
// --json tells an editor them before any server runs).
func DefaultFiles() Files {
	return Files{Scripts: workspace.DefaultScriptGlobs, TestFiles: workspace.TestFileGlob, Skip: input.SkipDirGlob}
}

// filesOf are the Files of set.
func filesOf(set settings) Files {
	return Files{Scripts: set.Scripts.Globs(), TestFiles: workspace.TestFileGlob, Skip: input.SkipDirGlob}
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
func statusOf(snap *config.Snapshot, show workspace.PathDisplay) Status {
	st := Status{Sources: show.Sources(snap.Sources), Problems: map[string]int{}}
	for _, d := range snap.Diagnostics() {
		st.Problems[d.Severity.String()]++
	}
	for _, k := range config.Kinds {
		reg := snap.For(k)
		h := reg.HintState()
		st.Kinds = append(st.Kinds, KindStatus{Kind: k, Services: reg.Len(), Hints: h.Offered, Message: show.Text(h.Message())})
	}
	return st
}

// configMapper maps positions in a configuration file: the open buffer if
// the editor has it, else the file on disk as config reads it (ReadText:
// a regular file, XML decoded to UTF-8, so positions find their place).
func (s *session) configMapper(u uri.URI, path string) *mapper {
	_, m, err := s.readConfig(path)
	if err != nil {
		return newMapper("")
	}
	return m
}

// configOffset is the offset of a registry position (1-based line,
// column in characters) in m, the file's text; column 0 is the line's
// start.
func configOffset(m *mapper, p config.Position) int {
	return int(m.OffsetOfRunes(textpos.RunePos{Line: p.Line, Col: max(p.RuneCol, 1)}))
}

// configDiagnostic converts a registry diagnostic (1-based line, column
// in characters) to the rest of the line it points at.
func configDiagnostic(m *mapper, d config.Diagnostic) protocol.Diagnostic {
	var r protocol.Range
	if d.Line > 0 && d.Line <= m.Lines() {
		start, end := int(m.LineStart(d.Line)), int(m.LineEnd(d.Line))
		off := configOffset(m, d.Position)
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
