package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.lsp.dev/jsonrpc2"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// metricsServer is a Server with metrics on /metrics, a registry loaded
// through Ops.WrapLoad as serve --http wires it, and a runner whose
// scripts throw when they say so.
func metricsServer(t *testing.T, token string) (*Server, *httptest.Server) {
	t.Helper()
	ops := NewOps(OpsOptions{Metrics: true, Version: "v9.9.9-test"})
	s, hs := newTestServerLoad(t, config.Sources{ConfigRoot: exampleRoot}, ops.WrapLoad(nil), func(o *Options) {
		o.Ops, o.ServeMetrics, o.Token = ops, true, token
		o.Runner = ops.WrapRunner(func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
			switch {
			case strings.Contains(req.Text, "throw"):
				return &dryrun.Result{Result: json.RawMessage("null"), Error: &dryrun.ScriptError{Name: "Error", Message: "no"}}, nil
			case strings.Contains(req.Text, "busy"):
				return nil, workspace.ErrRunnerBusy
			}
			return &dryrun.Result{Result: json.RawMessage("1")}, nil
		})
	})
	return s, hs
}

func scrape(t *testing.T, url string, header map[string]string) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	res, body := get(t, url, header)
	if res.StatusCode != 200 {
		t.Fatalf("GET /metrics = %d %s", res.StatusCode, body)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics is not the Prometheus text format: %v", err)
	}
	return fams, body
}

// labelSets lists a family's label sets as name=value,... strings.
func labelSets(f *dto.MetricFamily) []string {
	var out []string
	for _, m := range f.GetMetric() {
		var kv []string
		for _, l := range m.GetLabel() {
			kv = append(kv, l.GetName()+"="+l.GetValue())
		}
		out = append(out, strings.Join(kv, ","))
	}
	sort.Strings(out)
	return out
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	const token = "metrics-test-token"
	_, hs := metricsServer(t, token)
	base := hs.URL
	auth := map[string]string{"Authorization": "Bearer " + token}
	ctx := testCtx(t)

	// Some traffic: reads, a session with a completion, runs.
	get(t, base+"/v1/services", auth)
	get(t, base+"/v1/services?kind=nope", auth)
	c, err := dialLSP(t, ctx, wsURL(hs)+"?access_token="+token, nil)
	if err != nil {
		t.Fatal(err)
	}
	const uri = "file:///designer/scriptService/script.js"
	if err := c.open(ctx, uri, `api.rest.v1.get("`); err != nil {
		t.Fatal(err)
	}
	if _, err := c.complete(ctx, uri, 0, 17); err != nil {
		t.Fatal(err)
	}
	post(t, base+"/v1/run", `{"text":"1"}`, auth)
	post(t, base+"/v1/run", `{"text":"throw 1"}`, auth)
	post(t, base+"/v1/run", `{"text":"1","kind":"nope"}`, auth)
	post(t, base+"/v1/run", `{"text":"busy"}`, auth)

	// Behind the token like every endpoint.
	if res, _ := get(t, base+"/metrics", nil); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /metrics without the token = %d, want 401", res.StatusCode)
	}
	fams, body := scrape(t, base+"/metrics", auth)
	// Each family says what it is and what it counts; the runtime's and
	// the process's metrics come along.
	for name, want := range map[string]dto.MetricType{
		"restls_dry_runs_total":                dto.MetricType_COUNTER,
		"restls_lsp_sessions_open":             dto.MetricType_GAUGE,
		"restls_lsp_request_duration_seconds":  dto.MetricType_HISTOGRAM,
		"restls_http_request_duration_seconds": dto.MetricType_HISTOGRAM,
		"go_goroutines":                        dto.MetricType_GAUGE,
		"process_resident_memory_bytes":        dto.MetricType_GAUGE,
		"process_cpu_seconds_total":            dto.MetricType_COUNTER,
	} {
		f := fams[name]
		if f.GetType() != want {
			t.Errorf("%s is a %v, want a %v", name, f.GetType(), want)
		}
		if strings.HasPrefix(name, "restls_") && f.GetHelp() == "" {
			t.Errorf("%s has no help text", name)
		}
	}
	if h := fams["restls_lsp_requests_total"].GetHelp(); h != `JSON-RPC requests received over /lsp, by LSP method ("other" for a method restls does not serve).` {
		t.Errorf("help of restls_lsp_requests_total = %q", h)
	}
	for name, want := range map[string][]string{
		"restls_build_info":                   {"goversion=" + goVersion() + ",version=v9.9.9-test"},
		"restls_lsp_sessions_open":            {""},
		"restls_dry_runs_total":               {"outcome=bad-request", "outcome=busy", "outcome=canceled", "outcome=failed", "outcome=refused", "outcome=returned", "outcome=threw"},
		"restls_registry_loads_total":         {""},
		"restls_registry_load_failures_total": {"kind=scriptService", "kind=scriptTask", "kind=validationScript"},
		"restls_registry_services":            {"kind=scriptService", "kind=scriptTask", "kind=validationScript"},
		"restls_registry_diagnostics":         {""},
	} {
		f := fams[name]
		if f == nil {
			t.Errorf("no %s", name)
			continue
		}
		if got := labelSets(f); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s labels %v, want %v", name, got, want)
		}
	}
	value := func(name string, labels ...string) float64 {
		for _, m := range fams[name].GetMetric() {
			var kv []string
			for _, l := range m.GetLabel() {
				kv = append(kv, l.GetName()+"="+l.GetValue())
			}
			if strings.Join(kv, ",") == strings.Join(labels, ",") {
				switch {
				case m.Counter != nil:
					return m.Counter.GetValue()
				case m.Gauge != nil:
					return m.Gauge.GetValue()
				case m.Histogram != nil:
					return float64(m.Histogram.GetSampleCount())
				}
			}
		}
		t.Errorf("no %s{%s}", name, strings.Join(labels, ","))
		return -1
	}
	if v := value("restls_lsp_sessions_open"); v != 1 {
		t.Errorf("sessions open = %v, want 1", v)
	}
	if v := value("restls_lsp_requests_total", "method=textDocument/completion"); v != 1 {
		t.Errorf("completion requests = %v", v)
	}
	if v := value("restls_lsp_requests_completed_total", "method=textDocument/completion", "outcome=ok"); v != 1 {
		t.Errorf("completions answered = %v", v)
	}
	if v := value("restls_lsp_request_duration_seconds", "method=textDocument/completion"); v != 1 {
		t.Errorf("completion latency samples = %v", v)
	}
	for _, o := range []string{"returned", "threw", "bad-request", "busy"} {
		if v := value("restls_dry_runs_total", "outcome="+o); v != 1 {
			t.Errorf("dry runs %s = %v, want 1", o, v)
		}
	}
	if v := value("restls_http_requests_total", "code=200", "route=GET /v1/services"); v != 1 {
		t.Errorf("GET /v1/services 200 = %v", v)
	}
	if v := value("restls_http_requests_total", "code=400", "route=GET /v1/services"); v != 1 {
		t.Errorf("GET /v1/services 400 = %v", v)
	}
	if v := value("restls_http_requests_total", "code=401", "route=refused"); v != 1 {
		t.Errorf("refused = %v", v)
	}
	if v := value("restls_registry_loads_total"); v < 1 {
		t.Errorf("loads = %v", v)
	}
	if v := value("restls_registry_services", "kind=scriptService"); v != 12 {
		t.Errorf("scriptService services = %v, want 12", v)
	}
	// Nothing from the configuration but counts: no address, no serviceId,
	// no credential, no token.
	noSecrets(t, "/metrics", body)
	for _, bad := range []string{"://", "example.com", "crm-customers", token, "access_token"} {
		if strings.Contains(body, bad) {
			t.Errorf("/metrics contains %q", bad)
		}
	}
	c.close()
}

// TestMetricsMethodLabelBounded: a method restls does not serve is counted
// as "other", so a client cannot make the label set grow.
func TestMetricsMethodLabelBounded(t *testing.T) {
	t.Parallel()
	_, hs := metricsServer(t, "")
	base := hs.URL
	ctx := testCtx(t)
	c, err := dialLSP(t, ctx, wsURL(hs), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if err := c.open(ctx, "file:///a.js", ""); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"x/one", "x/two", "$/secret-https://example.com"} {
		_ = c.call(ctx, m, map[string]any{}, nil)
	}
	fams, body := scrape(t, base+"/metrics", nil)
	if strings.Contains(body, "x/one") || strings.Contains(body, "example.com") {
		t.Errorf("a client's method name reached the labels")
	}
	got := labelSets(fams["restls_lsp_requests_total"])
	if strings.Join(got, " ") != "method=initialize method=other" {
		t.Errorf("request labels %v", got)
	}
}

func TestMetricsOffByDefault(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	if res, _ := get(t, hs.URL+"/metrics", nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /metrics without metrics = %d, want 404", res.StatusCode)
	}
}

// TestReadyz: not ready while the first load runs, ready after it, also
// when it failed (no serviceId hints is a working server, docs/api.md#editor-hints);
// /healthz answers throughout.
func TestReadyz(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var once sync.Once
	ops := NewOps(OpsOptions{})
	load := ops.WrapLoad(func(src config.Sources) *config.Snapshot {
		once.Do(func() { <-release })
		return config.Load(src)
	})
	s, hs := newTestServerLoad(t, config.Sources{ConfigRoot: brokenRoot(t)}, load, func(o *Options) { o.Ops = ops })
	base := hs.URL
	loaded := make(chan struct{})
	go func() { s.opts.Snapshot(); close(loaded) }()
	if res, body := get(t, base+"/readyz", nil); res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, `"loading"`) {
		t.Errorf("/readyz during the first load = %d %s", res.StatusCode, body)
	}
	if res, _ := get(t, base+"/healthz", nil); res.StatusCode != 200 {
		t.Errorf("/healthz during the first load = %d", res.StatusCode)
	}
	close(release)
	<-loaded
	if res, body := get(t, base+"/readyz", nil); res.StatusCode != 200 || !strings.Contains(body, `"ready"`) {
		t.Errorf("/readyz after a failed load = %d %s", res.StatusCode, body)
	}
}

// TestRPCWatchIDs: a response is matched to its request by id, numeric or
// string (escaped however the encoder likes).
func TestRPCWatchIDs(t *testing.T) {
	t.Parallel()
	ops := NewOps(OpsOptions{Metrics: true})
	w := ops.watch()
	for _, tc := range []struct {
		req, res string
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{}}`, `{"jsonrpc":"2.0","id":7,"result":null}`},
		{`{"jsonrpc":"2.0","id":"a\u003cb","method":"textDocument/hover","params":{}}`, `{"jsonrpc":"2.0","id":"a<b","result":null}`},
		{`{"jsonrpc":"2.0","id":"x","method":"textDocument/hover","params":{}}`, `{"jsonrpc":"2.0","id":"x","error":{"code":-32800,"message":"cancelled"}}`},
	} {
		msg, err := jsonrpc2.DecodeMessage([]byte(tc.req))
		if err != nil {
			t.Fatal(err)
		}
		w.read(msg)
		w.wrote([]byte(tc.res))
	}
	if n := len(w.pending); n != 0 {
		t.Errorf("%d requests never matched their answer", n)
	}
	if n := ops.lspCompleted.counter("textDocument/hover", "cancelled").Get(); n != 1 {
		t.Errorf("cancelled = %d, want 1", n)
	}
	if n := ops.lspCompleted.counter("textDocument/hover", "ok").Get(); n != 2 {
		t.Errorf("ok = %d, want 2", n)
	}
}
