package hints

import "strings"

// CodeTimeoutBudget is the information diagnostic on a call whose answer,
// in the script's last dry run, took at least 80% of the read timeout in
// force (issue 28's timeout budget hint). It is not in Diagnose: the
// language server adds it from the run it keeps (BudgetDiagnostics).
const CodeTimeoutBudget = "timeout-budget"

// SlowCall is a call of a dry run whose answer came close to its read
// timeout: its serviceId, its HTTP method and what the run said of it.
type SlowCall struct {
	ServiceID, Method string
	Message           string
}

// BudgetDiagnostics places a timeout-budget diagnostic on each call of doc
// written with the serviceId literal and the method of a slow call of the
// last run (a run does not say which line made a call: every call site of
// that serviceId and method gets it).
func BudgetDiagnostics(doc *Document, slow []SlowCall) (out []Diagnostic) {
	if len(slow) == 0 {
		return nil
	}
	defer recovered()
	for _, site := range CallSites(doc) {
		if site.Dynamic || site.ServiceID == "" {
			continue
		}
		for _, c := range slow {
			if c.ServiceID == site.ServiceID && strings.EqualFold(c.Method, site.Method) {
				out = append(out, Diagnostic{Range: site.NameRange, Severity: SeverityInfo, Code: CodeTimeoutBudget,
					Message: "in the last dry run, " + c.Message})
				break
			}
		}
	}
	return out
}
