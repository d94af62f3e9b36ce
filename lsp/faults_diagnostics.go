package lsp

import (
	"fmt"
	"strings"

	"github.com/restls/restls/hints"
)

// The fault warnings of fault exploration (faults.go): one per call
// site whose failures fail, published with the script's diagnostics
// (session_diagnostics.go) and read by its quick fixes (code_action.go).

// faultDiagnostics are the warnings of a script explored as it is: one
// per call site with an outcome whose verdict fails, naming them.
func (s *session) faultDiagnostics(d *document) []hints.Diagnostic {
	e := s.exploredOf(d)
	if e == nil {
		return nil
	}
	var out []hints.Diagnostic
	for i, r := range placeSites(d.doc, d.m, e.rep) {
		var by []string
		first := ""
		for _, f := range e.rep.Findings {
			if f.Site == i && e.rep.Fails(f) {
				by = append(by, f.Outcome+" "+string(f.Verdict))
				if first == "" {
					first = f.Outcome + ": " + f.Detail()
				}
			}
		}
		if len(by) == 0 {
			continue
		}
		site := e.rep.Sites[i]
		out = append(out, hints.Diagnostic{Range: r, Severity: hints.SeverityWarning, Code: CodeFault,
			Message: fmt.Sprintf("the script does not survive this %s %s call failing: %s (%s). Handle the failure (an answer of the service has e.status && e.status.code), then add it as a test case (quick fix)",
				site.Method, site.ServiceID, strings.Join(by, ", "), first)})
	}
	return out
}
