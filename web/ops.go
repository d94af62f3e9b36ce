package web

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// Ops is the operators' side of serve --http: readiness (/readyz) and,
// when asked for, Prometheus metrics (/metrics). Make it before the
// language server, so that WrapLoad sees every registry load, and hand it
// to New in Options.Ops.
//
// No label carries a URL, a serviceId, a path or a credential: methods,
// routes and outcomes come from fixed lists.
type Ops struct {
	// loaded is set once the first registry load has returned, whatever
	// its outcome: a failed load serves with no serviceId hints (docs/api.md#editor-hints).
	loaded  atomic.Bool
	wrapped atomic.Bool
	// stopping: the server got SIGTERM; /readyz fails from then on.
	stopping atomic.Bool

	reg *metricSet // nil without metrics

	sessions       *metrics.Gauge
	lspStarted     family
	lspCompleted   family
	lspLatency     family
	httpRequests   family
	httpLatency    family
	dryRuns        family
	dryRunsBy      family
	loads          *metrics.Counter
	loadFailures   family
	loadLatency    *metrics.PrometheusHistogram
	services       family
	configProblems *metrics.Gauge
}

// OpsOptions configure Ops.
type OpsOptions struct {
	// Metrics turns /metrics on.
	Metrics bool
	// Version is reported by restls_build_info.
	Version string
}

// NewOps returns an Ops.
func NewOps(o OpsOptions) *Ops {
	ops := &Ops{}
	if !o.Metrics {
		return ops
	}
	reg := newMetricSet()
	ops.sessions = reg.family("restls_lsp_sessions_open", "Language-server sessions open over /lsp WebSockets.").gauge()
	ops.lspStarted = reg.family("restls_lsp_requests_total",
		"JSON-RPC requests received over /lsp, by LSP method (\"other\" for a method restls does not serve).", "method")
	ops.lspCompleted = reg.family("restls_lsp_requests_completed_total",
		"JSON-RPC requests answered over /lsp, by LSP method and outcome (ok, error, cancelled).", "method", "outcome")
	ops.lspLatency = reg.family("restls_lsp_request_duration_seconds",
		"Time from receiving a JSON-RPC request over /lsp to queueing its answer, by LSP method.", "method")
	ops.httpRequests = reg.family("restls_http_requests_total",
		"HTTP requests by route (the endpoint's pattern, never the address asked for) and status code.", "route", "code")
	ops.httpLatency = reg.family("restls_http_request_duration_seconds",
		"HTTP request duration by route (not /lsp, whose socket lives on).", "route")
	ops.dryRuns = reg.family("restls_dry_runs_total",
		"Dry runs (restls.runScript over /lsp and POST /v1/run) by outcome: returned, threw (an uncaught error, the runner's limits included), busy, failed, canceled; and POST /v1/run bodies refused before running: bad-request, refused (no --allow-run).", "outcome")
	ops.dryRunsBy = reg.family("restls_dry_runs_by_role_total",
		"Dry runs by the role of who asked (viewer, mocker, runner; key for the access key, stdio for the editor on stdio), mode (live, mock) and outcome (returned, threw, refused, busy, canceled, failed). No label names a user.", "role", "mode", "outcome")
	ops.loads = reg.family("restls_registry_loads_total", "Registry loads (start, file changes, reloads, SIGHUP).").counter()
	ops.loadFailures = reg.family("restls_registry_load_failures_total",
		"Registry loads after which a script kind offers no serviceId hints, by kind.", "kind")
	ops.loadLatency = reg.family("restls_registry_load_duration_seconds", "Registry load time.").histogram(latencyBuckets)
	ops.services = reg.family("restls_registry_services", "Usable serviceIds in the last loaded registry, by script kind.", "kind")
	ops.configProblems = reg.family("restls_registry_diagnostics", "Configuration diagnostics of the last loaded registry.").gauge()
	build := reg.family("restls_build_info", "restls's version and the Go version it was built with; always 1.", "version", "goversion")
	build.gauge(o.Version, goVersion()).Set(1)
	// Outcomes and kinds appear at zero before the first event.
	for _, out := range []string{"returned", "threw", "busy", "failed", "canceled", "bad-request", "refused"} {
		ops.dryRuns.counter(out)
	}
	for _, k := range config.Kinds {
		ops.loadFailures.counter(string(k))
	}
	ops.reg = reg
	return ops
}

// latencyBuckets are the upper bounds, in seconds, of every latency
// histogram.
var latencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

func goVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.GoVersion
	}
	return ""
}

// Metrics reports whether /metrics is served.
func (o *Ops) Metrics() bool { return o != nil && o.reg != nil }

// MetricsHandler serves the metrics in Prometheus' text format; for
// --metrics-addr, or mounted on /metrics by New.
func (o *Ops) MetricsHandler() http.Handler {
	return o.reg
}

// WrapLoad wraps the language server's registry loader: readiness and the
// registry metrics.
func (o *Ops) WrapLoad(load func(config.Sources) *config.Snapshot) func(config.Sources) *config.Snapshot {
	if load == nil {
		load = config.Load
	}
	o.wrapped.Store(true)
	return func(src config.Sources) *config.Snapshot {
		start := time.Now()
		snap := load(src)
		o.loaded.Store(true)
		if o.reg != nil {
			o.loads.Inc()
			o.loadLatency.UpdateDuration(start)
			for _, k := range config.Kinds {
				reg := snap.For(k)
				o.services.gauge(string(k)).Set(float64(reg.Len()))
				if !reg.HintState().Offered {
					o.loadFailures.counter(string(k)).Inc()
				}
			}
			o.configProblems.Set(float64(len(snap.Diagnostics())))
		}
		return snap
	}
}

// ready reports whether the registry has been loaded at least once. With
// no WrapLoad (tests, embedders) asking for the snapshot loads it.
func (o *Ops) ready(snapshot func() *config.Snapshot) bool {
	if o.stopping.Load() {
		return false
	}
	if o.wrapped.Load() {
		return o.loaded.Load()
	}
	return snapshot() != nil
}

// lspMethods are the methods counted by name; anything else is "other",
// so a client cannot grow the label set.
var lspMethods = func() map[string]bool {
	m := map[string]bool{}
	for _, name := range []string{"initialize", "shutdown", "textDocument/completion", "completionItem/resolve", "textDocument/hover",
		"textDocument/signatureHelp", "textDocument/codeAction", "textDocument/definition", "workspace/executeCommand"} {
		m[name] = true
	}
	return m
}()

func methodLabel(m string) string {
	if lspMethods[m] {
		return m
	}
	return "other"
}

// rpcWatch times one session's requests: the stream calls it with every
// request read and every response written.
type rpcWatch struct {
	ops     *Ops
	mu      sync.Mutex
	pending map[string]pendingCall
}

type pendingCall struct {
	method string
	start  time.Time
}

func (o *Ops) watch() *rpcWatch {
	if !o.Metrics() {
		return nil
	}
	return &rpcWatch{ops: o, pending: map[string]pendingCall{}}
}

// idKey is an id as its JSON text, as wrote reads it from the frame.
func idKey(id jsonrpc2.ID) string {
	if n, ok := id.Number(); ok {
		return strconv.FormatInt(n, 10)
	}
	str, _ := id.StringValue()
	b, _ := json.Marshal(str)
	return string(b)
}

func (w *rpcWatch) read(msg jsonrpc2.Message) {
	if w == nil {
		return
	}
	call, ok := msg.(*jsonrpc2.Call)
	if !ok {
		return
	}
	m := methodLabel(call.Method())
	w.ops.lspStarted.counter(m).Inc()
	w.mu.Lock()
	if len(w.pending) < 4096 { // a client that never reads its answers cannot grow this
		w.pending[idKey(call.ID())] = pendingCall{method: m, start: time.Now()}
	}
	w.mu.Unlock()
}

// wrote sees an encoded message the session sends. The connection hands
// the stream its own unexported response type, so the frame is read again
// (only with metrics on): its id and whether it is an error, no more.
func (w *rpcWatch) wrote(frame []byte) {
	if w == nil {
		return
	}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Error  *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(frame, &env) != nil || env.Method != nil || len(env.ID) == 0 {
		return // not a response
	}
	key := string(env.ID)
	if env.ID[0] == '"' {
		// The same text idKey gives, whatever escaping the encoder chose.
		var str string
		if json.Unmarshal(env.ID, &str) != nil {
			return
		}
		b, _ := json.Marshal(str)
		key = string(b)
	}
	w.mu.Lock()
	p, ok := w.pending[key]
	delete(w.pending, key)
	w.mu.Unlock()
	if !ok {
		return
	}
	outcome := "ok"
	switch {
	case env.Error == nil:
	case env.Error.Code == -32800: // RequestCancelled
		outcome = "cancelled"
	default:
		outcome = "error"
	}
	w.ops.lspCompleted.counter(p.method, outcome).Inc()
	w.ops.lspLatency.histogram(latencyBuckets, p.method).UpdateDuration(p.start)
}

func (o *Ops) sessionOpened() {
	if o.Metrics() {
		o.sessions.Inc()
	}
}

func (o *Ops) sessionClosed() {
	if o.Metrics() {
		o.sessions.Dec()
	}
}

func (o *Ops) request(route string, code int, took time.Duration) {
	if !o.Metrics() {
		return
	}
	o.httpRequests.counter(route, strconv.Itoa(code)).Inc()
	if route != "/lsp" {
		o.httpLatency.histogram(latencyBuckets, route).Update(took.Seconds())
	}
}

// WrapRunner counts the dry runs of runner by outcome: wrap the one runner
// that /lsp (restls.runScript) and POST /v1/run share, so both count.
func (o *Ops) WrapRunner(runner Runner) Runner {
	if runner == nil || !o.Metrics() {
		return runner
	}
	return func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		res, err := runner(ctx, snap, req)
		o.dryRun(runOutcome(ctx, res, err))
		return res, err
	}
}

// dryRunBy counts a run that passed the gate (or was refused by it) by
// role, mode and outcome: fixed lists, never a user's name.
func (o *Ops) dryRunBy(role, mode, outcome string) {
	if o.Metrics() {
		o.dryRunsBy.counter(role, mode, outcome).Inc()
	}
}

func (o *Ops) dryRun(outcome string) {
	if o.Metrics() {
		o.dryRuns.counter(outcome).Inc()
	}
}

// opsHandler serves what an operators' port (--metrics-addr) answers
// without the access key: /metrics, /healthz and /readyz, nothing that
// reads the configuration.
func (s *Server) opsHandler() http.Handler {
	mux := http.NewServeMux()
	if s.opts.Ops.Metrics() {
		mux.Handle("GET /metrics", s.opts.Ops.MetricsHandler())
	}
	mux.HandleFunc("GET /healthz", s.handleHealth)
	mux.HandleFunc("GET /readyz", s.handleReady)
	return mux
}

// ServeOps serves the operators' port on ln until ctx ends.
func (s *Server) ServeOps(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s.opsHandler(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: zap.NewStdLog(s.log.Named("ops"))}
	context.AfterFunc(ctx, func() { _ = hs.Close() })
	err := hs.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// handleReady is /readyz: 200 once the registry has been loaded at least
// once (a load that failed counts: the server then serves with no
// serviceId hints, which is the degraded mode of docs/api.md#editor-hints, not an outage), 503
// before.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	if !s.opts.Ops.ready(s.opts.Snapshot) {
		status := "loading"
		if s.opts.Ops.stopping.Load() {
			status = "stopping"
		}
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": status, "version": s.opts.Version})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready", "version": s.opts.Version})
}

// ReloadBySignal reloads the configuration because an operator asked
// for it (cmd/restls calls it on SIGHUP): the registry and the
// descriptions, every session diagnosed again, a line in the audit and
// the log.
func (s *Server) ReloadBySignal() {
	s.opts.Session.Reload()
	s.auditSignalReload()
	s.log.Info("configuration reloaded (SIGHUP)")
}
