package web

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestMetricSeries: label names in name order whatever order the family
// gave them, values escaped as the text format wants, and the output read
// back by Prometheus' own parser with its help text.
func TestMetricSeries(t *testing.T) {
	t.Parallel()
	m := newMetricSet()
	f := m.family("restls_test_total", "A test\\counter\nof two lines.", "route", "code")
	odd := `a"b\c` + "\n"
	if got, want := f.series(odd, "200"), `restls_test_total{code="200",route="a\"b\\c\n"}`; got != want {
		t.Errorf("series = %s, want %s", got, want)
	}
	f.counter(odd, "200").Add(3)
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type = %q", ct)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(rec.Body.String()))
	if err != nil {
		t.Fatalf("not the text format: %v\n%s", err, rec.Body.String())
	}
	fam := fams["restls_test_total"]
	if fam.GetHelp() != "A test\\counter\nof two lines." {
		t.Errorf("help = %q", fam.GetHelp())
	}
	ms := fam.GetMetric()
	if len(ms) != 1 || ms[0].GetCounter().GetValue() != 3 {
		t.Fatalf("samples = %v", ms)
	}
	var route string
	for _, l := range ms[0].GetLabel() {
		if l.GetName() == "route" {
			route = l.GetValue()
		}
	}
	if route != odd {
		t.Errorf("route = %q, want %q", route, odd)
	}
}
