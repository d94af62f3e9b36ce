package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/hints"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// cacheControl lets an editor keep a response but makes it ask again every
// time; with the ETag the answer is a body-less 304 while nothing changed,
// which is what makes polling cheap.
const cacheControl = "no-cache"

// retryAfterBusy is the Retry-After, in seconds, of a dry run refused
// because the runner is busy: a run against real services takes seconds.
const retryAfterBusy = "2"

// etagCache remembers the encoded hints map per (snapshot, kind) and
// generation of the API descriptions (workspace.Session.APIServices), so polling
// an unchanged registry costs a map lookup, not an encoding.
type etagCache struct {
	mu   sync.Mutex
	snap *config.Snapshot
	gen  int64
	byK  map[config.Kind]encoded
}

type encoded struct {
	body []byte
	etag string
}

func (c *etagCache) get(snap *config.Snapshot, gen int64, kind config.Kind, build func() any) (encoded, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap != snap || c.gen != gen {
		c.snap, c.gen, c.byK = snap, gen, map[config.Kind]encoded{}
	}
	if e, ok := c.byK[kind]; ok {
		return e, nil
	}
	e, err := encode(build())
	if err != nil {
		return encoded{}, err
	}
	c.byK[kind] = e
	return e, nil
}

func encode(v any) (encoded, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return encoded{}, err
	}
	b = append(b, '\n')
	sum := sha256.Sum256(b)
	return encoded{body: b, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}, nil
}

// serveCached writes e with its ETag, or 304 when the client has it.
func serveCached(w http.ResponseWriter, r *http.Request, e encoded) {
	h := w.Header()
	h.Set("ETag", e.etag)
	h.Set("Cache-Control", cacheControl)
	if etagMatch(r.Header.Get("If-None-Match"), e.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json")
	_, _ = w.Write(e.body)
}

// etagMatch implements If-None-Match's weak comparison over a list.
func etagMatch(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"error":"could not encode the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}

// errorBody is every error answer: one sentence that says what to do.
type errorBody struct {
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, errorBody{Error: msg})
}

// refuseUnread answers a request before reading its body, and only then
// reads the body (at most maxRunBody bytes, within the request's read
// deadline, boundBody) and throws it away. Many clients (a plain socket,
// Python's http.client) send their whole body before they read the
// answer; had the server closed the connection with the body unread, the
// kernel would reset it, and they would get a broken pipe or a reset
// instead of the answer (issue 33, point 23: five of six 3.9 MiB runs
// past --max-runs heard nothing). Nothing is parsed and nothing kept: a
// refusal still costs no more than reading. The connection is closed
// after, so a body past the bound is never read as the next request.
func refuseUnread(w http.ResponseWriter, r *http.Request, code int, msg string) {
	w.Header().Set("Connection", "close")
	rc := http.NewResponseController(w)
	// HTTP/1 lets a handler read the body after it has answered only in
	// full duplex; without it (HTTP/2 needs none) the body is left.
	duplex := rc.EnableFullDuplex() == nil
	writeError(w, code, msg)
	if !duplex || r.Body == nil || r.ContentLength > maxRunBody {
		return
	}
	_ = rc.Flush()
	_, _ = io.CopyN(io.Discard, r.Body, maxRunBody+1)
}

// kindParam reads ?kind=, defaulting to scriptService.
func kindParam(r *http.Request) (config.Kind, error) {
	k := r.URL.Query().Get("kind")
	if k == "" {
		return config.ScriptService, nil
	}
	return config.ParseKind(k)
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": s.opts.Version})
}

// handleServices answers the hints map of docs/api.md#editor-hints for one kind:
// serviceId -> {url, description}, never a credential. When the registry
// failed to load the map is empty ({}): the editor offers no serviceId
// hints, and /v1/status says why.
func (s *Server) handleServices(w http.ResponseWriter, r *http.Request) {
	kind, err := kindParam(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, "kind: "+err.Error())
		return
	}
	snap := s.opts.Snapshot()
	// Services with a loaded API description say so ("api": true);
	// descriptions load in the background, so the answer is cached by
	// their generation too.
	apis, gen := s.opts.Session.APIServices(snap.For(kind))
	build := func() any {
		reg := snap.For(kind)
		if reg == nil {
			return map[string]config.HintsEntry{}
		}
		if apis == nil {
			return reg.HintsMap()
		}
		type entry struct {
			config.HintsEntry
			API bool `json:"api,omitempty"`
		}
		m := map[string]entry{}
		for id, h := range reg.HintsMap() {
			m[id] = entry{h, apis[id]}
		}
		return m
	}
	e, err := s.services.get(snap, gen, kind, build)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "could not encode the hints map: "+err.Error())
		return
	}
	serveCached(w, r, e)
}

// callJSON is hints.Call on the wire.
type callJSON struct {
	Name          string      `json:"name"`
	Method        string      `json:"method"`
	Signature     string      `json:"signature"`
	Documentation string      `json:"documentation"`
	Params        []paramJSON `json:"params"`
	HasPayload    bool        `json:"hasPayload"`
}

type paramJSON struct {
	Label         string `json:"label"`
	Documentation string `json:"documentation"`
}

var callsOnce = sync.OnceValues(func() (encoded, error) {
	var out []callJSON
	for _, c := range hints.Calls() {
		cj := callJSON{Name: c.Name, Method: c.Method, Signature: c.Signature, Documentation: c.Documentation, HasPayload: c.HasPayload}
		for _, p := range c.Params {
			cj.Params = append(cj.Params, paramJSON{Label: p.Label, Documentation: p.Documentation})
		}
		out = append(out, cj)
	}
	return encode(out)
})

func (s *Server) handleCalls(w http.ResponseWriter, r *http.Request) {
	e, err := callsOnce()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "could not encode the calls: "+err.Error())
		return
	}
	serveCached(w, r, e)
}

// statusJSON is GET /v1/status.
type statusJSON struct {
	Version string           `json:"version,omitempty"`
	Sources config.Sources   `json:"sources"`
	Kinds   []kindStatusJSON `json:"kinds"`
	// Run says whether this client may POST /v1/run, and why not.
	Run runStatusJSON `json:"run"`
	// Environments are the project file's environments, which a run may
	// name ("environment"), and Environment the one runs use by default;
	// absent when the file defines none.
	Environments []string `json:"environments,omitempty"`
	Environment  string   `json:"environment,omitempty"`
}

// runStatusJSON lets a page disable its Dry Run button with the reason
// instead of offering a click that answers 403 or 401.
type runStatusJSON struct {
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason,omitempty"`
	// Role is the client's role with --auth oidc or proxy: mocker runs
	// only with fixtures, runner live too.
	Role string `json:"role,omitempty"`
}

// Reasons a client may not run, as /v1/status gives them.
const (
	reasonNoAllowRun = ReasonNoAllowRun
	reasonNoKey      = "dry runs need the access key: open the page from the address restls serve --http printed (it ends in ?access_token=...)"
)

// runStatus is what r's client may do with POST /v1/run.
func (s *Server) runStatus(r *http.Request) runStatusJSON {
	id, _ := IdentityFrom(r.Context())
	roles := id.Auth != AuthKey && id.Auth != ""
	st := runStatusJSON{}
	if roles {
		st.Role = id.Role.String()
	}
	switch {
	case !s.runsOn():
		st.Reason = reasonNoAllowRun
	case !roles && !s.hasKey(r):
		st.Reason = reasonNoKey
	case roles && id.Role < RoleMocker:
		st.Reason = needsRole(id)
	default:
		st.Allowed = true
	}
	return st
}

// runsOn reports whether this server runs scripts at all (--allow-run).
func (s *Server) runsOn() bool { return s.run != nil && s.gate.opts.AllowRun }

// admitRun takes the engine's one limit (--max-runs) for a run of POST
// /v1/run or /v1/test, before its body is read: the body (up to 4 MiB)
// and its fixtures are decoded only for a run that may go, so concurrent
// large requests past --max-runs cost a 429, not their parse (issue 23,
// finding 4). It answers the refusal itself (403 without --allow-run,
// saying why, 429 when every slot is taken) and reports false; the
// caller releases the slot it gets (nil, whose Release does nothing,
// when the server has no limit).
func (s *Server) admitRun(w http.ResponseWriter, r *http.Request, why string) (*engine.Slot, bool) {
	if !s.runsOn() {
		s.opts.Ops.dryRun("refused")
		refuseUnread(w, r, http.StatusForbidden, ReasonNoAllowRun+" ("+why+")")
		return nil, false
	}
	if s.opts.Admit == nil {
		return nil, true
	}
	slot, ok := s.opts.Admit()
	if !ok {
		s.opts.Ops.dryRun("busy")
		w.Header().Set("Retry-After", retryAfterBusy)
		refuseUnread(w, r, http.StatusTooManyRequests, "the server is already running its maximum number of dry runs (--max-runs); try again in a few seconds")
		return nil, false
	}
	return slot, true
}

type kindStatusJSON struct {
	Kind config.Kind `json:"kind"`
	// Loaded: at least one source was read.
	Loaded bool `json:"loaded"`
	// Hints: serviceId hints are offered for this kind.
	Hints       bool                `json:"hints"`
	Services    int                 `json:"services"`
	Message     string              `json:"message"`
	Timeouts    config.Timeouts     `json:"timeouts"`
	Diagnostics []config.Diagnostic `json:"diagnostics"`
}

func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) {
	st := statusOf(s.opts.Snapshot(), s.opts.Version)
	st.Run = s.runStatus(r)
	st.Environments, st.Environment = s.opts.Session.Environments()
	writeJSON(w, http.StatusOK, st)
}

// statusOf builds the /v1/status answer for a snapshot.
func statusOf(snap *config.Snapshot, version string) statusJSON {
	st := statusJSON{Version: version, Kinds: []kindStatusJSON{}}
	show := pathDisplay(snap)
	if snap != nil {
		st.Sources = show.Sources(snap.Sources)
	}
	for _, k := range config.Kinds {
		reg := snap.For(k)
		h := reg.HintState()
		if reg == nil {
			st.Kinds = append(st.Kinds, kindStatusJSON{Kind: k, Message: h.Message(), Diagnostics: []config.Diagnostic{}})
			continue
		}
		diags := make([]config.Diagnostic, 0, len(reg.Diagnostics))
		for _, d := range reg.Diagnostics {
			diags = append(diags, show.Diagnostic(d))
		}
		st.Kinds = append(st.Kinds, kindStatusJSON{Kind: k, Loaded: reg.Loaded, Hints: h.Offered, Services: reg.Len(),
			Message: show.Text(h.Message()), Timeouts: reg.Timeouts, Diagnostics: diags})
	}
	return st
}

// runBody is POST /v1/run.
type runBody struct {
	// Text is the script.
	Text string `json:"text"`
	// Kind is the script kind; default scriptService.
	Kind string `json:"kind"`
	// Input is handed to the script as its input (JSON).
	Input json.RawMessage `json:"input"`
	// Mock is a fixture document in the --mock format answering the calls
	// instead of the network: its text (YAML or JSON) as a string, or the
	// JSON document itself.
	Mock json.RawMessage `json:"mock"`
	// Record makes the run live and answers its calls' answers as a
	// fixtures document too (runAnswer.Fixtures): the designer's Record.
	Record bool `json:"record"`
	// Environment names the project file's environment whose services the
	// run calls (GET /v1/status lists them); empty: the server's.
	Environment string `json:"environment"`
}

// runAnswer is POST /v1/run's answer: the run, and with "record" the
// fixtures built from its masked trace.
type runAnswer struct {
	*dryrun.Result
	// Fixtures is the fixtures document (YAML) of a recording run.
	Fixtures *string `json:"fixtures,omitempty"`
	// FixtureNotes say which calls became no fixture, or a cut one.
	FixtureNotes []string `json:"fixtureNotes,omitempty"`
}

// mockText returns the fixture document of a run body, nil for none, or
// an error a user can act on. The engine parses it before anything runs:
// a mistake is a 400 naming its line (runFailed), not a failed run.
func (b *runBody) mockText() ([]byte, error) {
	raw := bytes.TrimSpace(b.Mock)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	doc := []byte(raw)
	if raw[0] == '"' {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, err
		}
		if strings.TrimSpace(text) == "" {
			return nil, nil
		}
		doc = []byte(text)
	}
	return doc, nil // parsed by the engine, once
}

// mockName names the inline fixture document in parse errors as the run
// names it in answers ("pasted mocks:3"), so both point into the same text.
const mockName = restclient.PastedMocks

const maxRunBody = 4 << 20

// designerScript is the name of the script of POST /v1/run.
const designerScript = "script.js"

// runShape is POST /v1/run's body, for messages.
const runShape = `{"text": script, "kind"?: kind, "input"?: value, "mock"?: fixtures (YAML or JSON text), "record"?: true, "environment"?: name}`

func (s *Server) handleRun(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, runShape)
		return
	}
	slot, ok := s.admitRun(w, r, "a dry run executes the script and calls the configured services")
	if !ok {
		return
	}
	defer slot.Release()
	var body runBody
	dec := json.NewDecoder(io.LimitReader(r.Body, maxRunBody+1))
	if err := dec.Decode(&body); err != nil {
		s.opts.Ops.dryRun("bad-request")
		writeError(w, http.StatusBadRequest, "the body must be JSON "+runShape+": "+err.Error())
		return
	}
	mock, err := body.mockText()
	if err != nil {
		s.opts.Ops.dryRun("bad-request")
		writeError(w, http.StatusBadRequest, err.Error()+"; fix the fixture (the format is GET /v1/schema/mock.json and docs/runtime.md)")
		return
	}
	if body.Record && mock != nil {
		s.opts.Ops.dryRun("bad-request")
		writeError(w, http.StatusBadRequest, `"record" is a live run whose answers become fixtures: leave "mock" out`)
		return
	}
	// "kind" is a kind the user named (the designer's kind selector): it
	// wins over the script's "// restls-kind:" line, as restls run --kind
	// and restls.runScript's kind do; without it the engine's kind rule
	// decides.
	var kind config.Kind
	if body.Kind != "" {
		if kind, err = config.ParseKind(body.Kind); err != nil {
			s.opts.Ops.dryRun("bad-request")
			writeError(w, http.StatusBadRequest, "kind: "+err.Error())
			return
		}
	}
	snap, err := s.runSnapshot(body.Environment)
	if err != nil {
		s.opts.Ops.dryRun("bad-request")
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	req := engine.Request{Name: designerScript, Text: body.Text, Kind: kind, Input: body.Input, Trace: true, Slot: slot,
		Values: true} // the designer shows them beside the lines (issue 35)
	if mock != nil {
		req.Fixtures.Inline = mock
	}
	var answer runAnswer
	if body.Record {
		req.Fixtures.RecordText = func(doc []byte, notes []string, err error) {
			answer.FixtureNotes = notes
			if err != nil {
				answer.FixtureNotes = append(answer.FixtureNotes, "the fixtures could not be written: "+err.Error())
				return
			}
			text := string(doc)
			answer.Fixtures = &text
		}
	}
	res, err := s.run(r.Context(), snap, req)
	if err != nil {
		s.runFailed(w, r, err)
		return
	}
	if !body.Record {
		writeJSON(w, http.StatusOK, res)
		return
	}
	answer.Result = res
	writeJSON(w, http.StatusOK, answer)
}

// runFailed answers a run that did not run: refused by the gate (403,
// or 503 while stopping), busy (429), fixtures or configuration that
// cannot be used (400, 422), or a failure to start it (422).
func (s *Server) runFailed(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return // the client went away
	}
	var ref *RefusedError
	var fe *engine.FixturesError
	switch {
	case errors.As(err, &ref):
		s.opts.Ops.dryRun("refused")
		code := http.StatusForbidden
		if ref.Code == refusedStopping {
			code = http.StatusServiceUnavailable
			w.Header().Set("Retry-After", retryAfterBusy)
		}
		writeError(w, code, ref.Reason)
	case errors.Is(err, workspace.ErrRunnerBusy):
		w.Header().Set("Retry-After", retryAfterBusy)
		writeError(w, http.StatusTooManyRequests, err.Error())
	case errors.As(err, &fe):
		s.opts.Ops.dryRun("bad-request")
		writeError(w, http.StatusBadRequest, err.Error()+"; fix the fixture (the format is GET /v1/schema/mock.json and docs/runtime.md)")
	default:
		s.log.Info("dry run failed", zap.Error(err))
		writeError(w, http.StatusUnprocessableEntity, "dry run failed: "+err.Error())
	}
}

// runSnapshot is what a designer run, and its plan, run against: the
// session's snapshot in the environment asked, with no kind map (the
// designer's request says the kind: a script's own line decides
// otherwise, as the engine's rule does).
func (s *Server) runSnapshot(environment string) (workspace.Snapshot, error) {
	snap, err := s.snapshotIn(environment)
	snap.Kinds = nil
	return snap, err
}

// snapshotIn is the session's snapshot in the environment asked, picked
// by the workspace's rule ("": the default): its descriptions and the
// store that checks runs' answers are the session's. The designer's
// runs, run plans and test runs take it.
func (s *Server) snapshotIn(environment string) (workspace.Snapshot, error) {
	cfg, env, err := s.environmentSnapshot(environment)
	if err != nil {
		return workspace.Snapshot{}, err
	}
	snap := s.opts.Session.Snapshot()
	snap.Config, snap.Environment = cfg, env
	return snap, nil
}

// environmentSnapshot is the registry of the project file's environment
// name, and the name, as the workspace's rule picks it ("": the
// default's).
func (s *Server) environmentSnapshot(name string) (*config.Snapshot, string, error) {
	if name == "" {
		_, current := s.opts.Session.Environments()
		return s.opts.Snapshot(), current, nil
	}
	snap, env, err := s.opts.Session.EnvironmentSnapshot(name)
	var unknown *workspace.UnknownEnvironmentError
	if errors.As(err, &unknown) {
		if len(unknown.Known) == 0 {
			return nil, "", fmt.Errorf("environment %q: this server's project file defines no environments; leave \"environment\" out", name)
		}
		return nil, "", fmt.Errorf("environment %q: the project file defines no such environment; use one of %s (GET /v1/status lists them)", name, strings.Join(unknown.Known, ", "))
	}
	if err != nil {
		return nil, "", err
	}
	if _, current := s.opts.Session.Environments(); env == current {
		return s.opts.Snapshot(), env, nil
	}
	return snap, env, nil
}

// mockSchema is the fixture format's JSON Schema, for editors that
// validate a Mocks pane or a *.mock.yaml file.
var mockSchema = sync.OnceValue(func() encoded {
	sum := sha256.Sum256(restclient.MockSchema)
	return encoded{body: restclient.MockSchema, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
})

// projectSchema is the JSON Schema of restls.yaml (workspace.Schema).
var projectSchema = sync.OnceValue(func() encoded {
	sum := sha256.Sum256(workspace.Schema)
	return encoded{body: workspace.Schema, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
})

func (s *Server) handleMockSchema(w http.ResponseWriter, r *http.Request) {
	serveSchema(w, r, mockSchema())
}

func (s *Server) handleProjectSchema(w http.ResponseWriter, r *http.Request) {
	serveSchema(w, r, projectSchema())
}

// serveSchema answers with a JSON Schema, cached by its ETag.
func serveSchema(w http.ResponseWriter, r *http.Request, e encoded) {
	w.Header().Set("ETag", e.etag)
	w.Header().Set("Cache-Control", cacheControl)
	if etagMatch(r.Header.Get("If-None-Match"), e.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/schema+json")
	_, _ = w.Write(e.body)
}
