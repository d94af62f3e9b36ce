package web

import (
	"bufio"
	"bytes"
	"net/http"
	"sort"
	"strings"

	"github.com/VictoriaMetrics/metrics"
)

// metricSet is /metrics: VictoriaMetrics' metrics package, which writes
// Prometheus' text format without Prometheus' client library and the
// protobuf runtime behind it (2-3 MB of resident memory in every restls
// process, dry-run children included, whether or not metrics are served;
// docs/decisions.md). It adds the help texts that package leaves empty.
type metricSet struct {
	set  *metrics.Set
	help map[string]string // family name -> help text
}

func newMetricSet() *metricSet {
	// Global in the package, and restls has only this one set: TYPE lines
	// let scrapers tell counters and histograms from untyped samples.
	metrics.ExposeMetadata(true)
	return &metricSet{set: metrics.NewSet(), help: map[string]string{}}
}

// family is one metric family: a name, its label names, its help text.
type family struct {
	set    *metricSet
	name   string
	labels []string
	order  []int // indexes into labels in name order, as Prometheus' client wrote them
}

func (m *metricSet) family(name, help string, labels ...string) family {
	m.help[name] = help
	order := make([]int, len(labels))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return labels[order[i]] < labels[order[j]] })
	return family{set: m, name: name, labels: labels, order: order}
}

// series is the family's sample name with these label values (in the
// order the family's labels were given).
func (f family) series(values ...string) string {
	if len(f.labels) == 0 {
		return f.name
	}
	n := len(f.name) + 2
	for i, k := range f.labels {
		n += len(k) + len(values[i]) + 4
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(f.name)
	b.WriteByte('{')
	for j, i := range f.order {
		if j > 0 {
			b.WriteByte(',')
		}
		b.WriteString(f.labels[i])
		b.WriteString(`="`)
		if strings.ContainsAny(values[i], "\\\"\n") {
			b.WriteString(labelEscaper.Replace(values[i]))
		} else {
			b.WriteString(values[i])
		}
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// labelEscaper escapes a label value as the text format wants it.
var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func (f family) counter(values ...string) *metrics.Counter {
	return f.set.set.GetOrCreateCounter(f.series(values...))
}

func (f family) gauge(values ...string) *metrics.Gauge {
	return f.set.set.GetOrCreateGauge(f.series(values...), nil)
}

func (f family) histogram(buckets []float64, values ...string) *metrics.PrometheusHistogram {
	return f.set.set.GetOrCreatePrometheusHistogramExt(f.series(values...), buckets)
}

// ServeHTTP writes the set, then the Go runtime's go_* and the process's
// process_* metrics, in the text format.
func (m *metricSet) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	var buf bytes.Buffer
	m.set.WritePrometheus(&buf)
	metrics.WriteProcessMetrics(&buf)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = w.Write(m.withHelp(buf.Bytes()))
}

// withHelp fills in the help of the families it knows: the package writes
// "# HELP name" with no text.
func (m *metricSet) withHelp(text []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(text) + 2048)
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(nil, len(text)+1)
	for sc.Scan() {
		line := sc.Text()
		out.WriteString(line)
		if name, ok := strings.CutPrefix(line, "# HELP "); ok && !strings.Contains(name, " ") {
			if h := m.help[name]; h != "" {
				out.WriteByte(' ')
				out.WriteString(helpEscaper.Replace(h))
			}
		}
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// helpEscaper escapes a help text as the text format wants it.
var helpEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
