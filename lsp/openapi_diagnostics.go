package lsp

import (
	"go.lsp.dev/protocol"

	"github.com/restls/restls/workspace"
)

// The diagnostics of the API description files the "openapi" setting
// names (openapi.go), published with the configuration's
// (session_diagnostics.go).

// descriptionDiagnostics are the problems of the session's local
// description files, by file (workspace.DescriptionProblems).
func (s *session) descriptionDiagnostics() map[string][]protocol.Diagnostic {
	src := s.openAPISources()
	if len(src) == 0 {
		return nil
	}
	docs, _ := s.srv.ws.Descriptions().Docs(src)
	out := map[string][]protocol.Diagnostic{}
	var m *mapper
	mapped := ""
	for _, p := range workspace.DescriptionProblems(docs) {
		if m == nil || mapped != p.File {
			m, mapped = s.configMapper(hostPaths.fileURI(cleanAbs(p.File)), p.File), p.File
		}
		out[p.File] = append(out[p.File], protocol.Diagnostic{
			Range: m.lineRange(p.Line), Severity: configSeverity(p.Severity),
			Code: protocol.String(p.Code), Source: protocol.NewOptional("restls"),
			Message: protocol.String(p.Message),
		})
	}
	return out
}
