package hints

import (
	"fmt"
	"strconv"

	"github.com/restls/restls/config"
)

// The worst-case-time diagnostic (worstcase.go's figure above the
// kind's limit), which diagnose.go adds to the script's diagnostics.

// CodeWorstCaseTime is the information diagnostic on a script's first
// line when its static worst-case time (WorstCaseOf) is above the limit
// restls.yaml's timeLimits sets for its kind (Display.TimeLimit).
const CodeWorstCaseTime = "worst-case-time"

// worstDiagnostic is the worst-case-time information, when the worst
// case is above the limit.
func worstDiagnostic(doc *Document, reg *config.Registry, disp Display) (Diagnostic, bool) {
	if disp.TimeLimit <= 0 {
		return Diagnostic{}, false
	}
	w, ok := WorstCaseOf(doc, reg, disp)
	if !ok || !w.Above() {
		return Diagnostic{}, false
	}
	written, runs, oauth := len(w.Calls), 0, 0
	for _, c := range w.Calls {
		runs += c.Times
		if c.OAuth {
			oauth++
		}
	}
	msg := fmt.Sprintf("the calls of this %s may take up to %s by the connection and read timeouts in force (%s written", w.Kind, w.figure(), plural(written, "call"))
	if runs != written {
		msg += fmt.Sprintf(", made %d times", runs)
	}
	if oauth > 0 {
		msg += fmt.Sprintf(", %d with OAuth: token requests and the 401 retry", oauth)
	}
	msg += fmt.Sprintf("), above the %s limit of restls.yaml timeLimits.%s: pass lower TIMEOUTS, make fewer calls, or raise the limit", msText(w.Limit.Milliseconds()), w.Kind)
	return Diagnostic{Range: FirstLine(doc.text), Severity: SeverityInfo, Code: CodeWorstCaseTime, Message: msg}, true
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
