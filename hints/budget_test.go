package hints

import (
	"testing"
)

func TestBudgetDiagnostics(t *testing.T) {
	src := `var a = api.rest.v1.get("crm", {}, {});
var b = api.rest.v1.post("crm", {}, {}, {});
var c = api.rest.v1.get("billing", {}, {});
var d = api.rest.v1.get(id, {}, {});
var e = api.rest.v1.get("crm", {pathParams: ["x"]}, {});`
	doc := NewDocument(src)
	got := BudgetDiagnostics(doc, []SlowCall{{ServiceID: "crm", Method: "GET", Message: "the answer took 900 ms"}})
	if len(got) != 2 {
		t.Fatalf("got %d diagnostics: %+v", len(got), got)
	}
	for i, line := range []int{0, 4} {
		d := got[i]
		if d.Code != CodeTimeoutBudget || d.Severity != SeverityInfo || d.Message != "in the last dry run, the answer took 900 ms" {
			t.Errorf("%+v", d)
		}
		if start := offsetLine(src, d.Range.Start); start != line || src[d.Range.Start:d.Range.End] != "get" {
			t.Errorf("diagnostic %d at line %d %q", i, start, src[d.Range.Start:d.Range.End])
		}
	}
	if BudgetDiagnostics(doc, nil) != nil {
		t.Error("no slow call, no diagnostic")
	}
}

func offsetLine(s string, off int) int {
	n := 0
	for _, c := range s[:off] {
		if c == '\n' {
			n++
		}
	}
	return n
}
