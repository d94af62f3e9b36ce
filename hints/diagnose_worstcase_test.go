package hints

import (
	"strings"
	"testing"
	"time"
)

// Tests of diagnose_worstcase.go; the diagnostic's text is in
// worstcase_test.go's golden, with the hover and the inlay label.

// The diagnostic comes only with a limit, and only above it.
func TestWorstCaseDiagnosticLimit(t *testing.T) {
	reg := testRegistry(t)
	src := "api.rest.v1.get(\"crm\", {}, {});\nfor (;;) { api.rest.v1.get(\"crm\", {}, {}); }\n" // 12 s + 12 s per iteration
	for _, tc := range []struct {
		limit time.Duration
		want  bool
	}{{0, false}, {24 * time.Second, false}, {23 * time.Second, true}, {time.Second, true}} {
		got := false
		for _, d := range Diagnose(NewDocument(src), reg, Display{TimeLimit: tc.limit}) {
			if d.Code == CodeWorstCaseTime {
				got = true
				if d.Severity != SeverityInfo || d.Range != (Range{0, strings.IndexByte(src, '\n')}) {
					t.Errorf("limit %v: %+v, want an information on the first line", tc.limit, d)
				}
			}
		}
		if got != tc.want {
			t.Errorf("limit %v: diagnostic %v, want %v", tc.limit, got, tc.want)
		}
	}
}
