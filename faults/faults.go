// Package faults proves a script's error paths (issue 36): given a run
// that succeeds with its fixtures, it runs the script again once per call
// site and outcome, with that call answered by the outcome (a status its
// operation documents, a generic status, an OAuth failure, or a fault
// fixture: restclient.Faults), and says for each whether the script
// survived it.
//
// Every run is answered by parsed fixtures only: exploration never
// reaches a service, whether the runs are in process (restls faults,
// restls test --faults) or in children (the server's editor and /mcp). The surfaces (restls faults, restls test
// --faults, the editor's code lens, the designer's Faults tab, the MCP
// tool) are adapters over Explore.
package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/openapi"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// Outcomes are the generic outcomes, tried at every call site in this
// order after the statuses its operation documents: an undocumented 500
// with a text body, a 404, a 400, then the faults a status cannot
// express. An OAuth service's call sites also get OAuthOutcomes, before
// the faults.
var Outcomes = []string{"500", "404", "400",
	restclient.CodeNotJSON, restclient.CodeConnectTimeout, restclient.CodeReadTimeout, restclient.CodeConnectionRefused}

// Retry401 is the outcome of an OAuth service answering 401 to the call
// and again to its single retry with a new token.
const Retry401 = "401-after-retry"

// OAuthOutcomes are the failures of an OAuth service's own: the token
// request failing, and a 401 that stays 401 after the retry.
var OAuthOutcomes = []string{restclient.CodeTokenFailed, Retry401}

// DefaultMaxRuns bounds the reruns of one script.
const DefaultMaxRuns = 200

// Verdict is what an outcome at a call site did to the script.
type Verdict string

const (
	// Handled: the script returned, or threw an error of its own making.
	Handled Verdict = "handled"
	// Escaped: the contract's exception (a status outside 2XX) or a
	// RestClientError left the script.
	Escaped Verdict = "escaped"
	// Crashed: a TypeError, ReferenceError or RangeError after the
	// failure (reading e.status.code of a RestClientError, r.body.x of a
	// fallback undefined), or the script ran out of time or memory.
	Crashed Verdict = "crashed"
	// Misread: the contract's foreign-error rule broken, either way: a
	// RestClientError treated as an answer of the service (the script
	// returns for it what it returns for a status it tells from a 500),
	// or an answer of the service treated as a RestClientError (it
	// returns for a status what it returns for every RestClientError,
	// and something else for a 500).
	Misread Verdict = "misread"
	// Unanswered: after the failure the script made a call no fixture
	// answers, so what it does then is unknown: add a fixture for it.
	Unanswered Verdict = "unanswered"
)

// Verdicts are the verdicts in the order reports count them.
var Verdicts = []Verdict{Handled, Escaped, Crashed, Misread, Unanswered}

// DefaultFail are the verdicts that fail a script when neither the test
// file nor restls.yaml names others: escaped is reported, not failed (a
// script may mean to let the platform show the failure).
var DefaultFail = []Verdict{Crashed, Misread}

// ParseVerdicts reads a list of verdict names (restls.yaml's and a test
// file's faults.fail, --fail).
func ParseVerdicts(names []string) ([]Verdict, error) {
	out := []Verdict{}
	for _, n := range names {
		v := Verdict(strings.TrimSpace(n))
		if !slices.Contains(Verdicts, v) || v == Handled {
			return nil, fmt.Errorf("verdict %q: use escaped, crashed, misread or unanswered", n)
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// Site is a call site: the first call of the run with its serviceId,
// method and pathParams (a loop's calls to one path are one site, to
// different paths several).
type Site struct {
	ServiceID  string   `json:"serviceId"`
	Method     string   `json:"method"`
	PathParams []string `json:"pathParams"`
	// Line is the line of the statement that made the call, 1-based.
	Line int `json:"line"`
	// Call is the call's index in the successful run, from 0.
	Call int `json:"call"`
	// Operation is the operation of the attached API description the
	// call matches ("GET /orders/{id}"), whose documented statuses are
	// tried; "" for none.
	Operation string `json:"operation,omitempty"`
	// OAuth: the service authenticates with OAuth, so the token request
	// and the 401 after the retry are tried too.
	OAuth bool `json:"oauth,omitempty"`
}

// Finding is the verdict of one outcome at one site.
type Finding struct {
	Site    int     `json:"site"` // index in Report.Sites
	Outcome string  `json:"outcome"`
	Verdict Verdict `json:"verdict"`
	// Documented: the outcome is a status the site's operation
	// documents, answered with the description's body.
	Documented bool `json:"documented,omitempty"`
	// Fixture is the fixture that answered the site's call with the
	// outcome (times: 1, or 2 for the 401 and its retry), as a test case
	// or a fixture file writes it.
	Fixture json.RawMessage `json:"fixture"`
	// Result is what the script returned (Error nil), Error what left it.
	Result json.RawMessage     `json:"result,omitempty"`
	Error  *dryrun.ScriptError `json:"error,omitempty"`
	// Note says why a verdict is misread or unanswered.
	Note string `json:"note,omitempty"`
}

// Report is the exploration of one script.
type Report struct {
	Sites    []Site    `json:"sites"`
	Findings []Finding `json:"findings"`
	// Runs counts the reruns made; Cut the (site, outcome) pairs the cap
	// left out, in Sites order.
	Runs int `json:"runs"`
	Cut  int `json:"cut,omitempty"`
	// Notes say what the user should know about the exploration itself:
	// what the cap cut, a description that did not load.
	Notes []string `json:"notes,omitempty"`
	// Fail are the verdicts that fail the script (Options.Fail).
	Fail []Verdict `json:"fail"`
}

// Failed counts the findings whose verdict is one of r.Fail.
func (r *Report) Failed() int {
	n := 0
	for _, f := range r.Findings {
		if slices.Contains(r.Fail, f.Verdict) {
			n++
		}
	}
	return n
}

// Fails reports whether the finding's verdict fails the script.
func (r *Report) Fails(f Finding) bool { return slices.Contains(r.Fail, f.Verdict) }

// Count is how many findings have verdict v.
func (r *Report) Count(v Verdict) int {
	n := 0
	for _, f := range r.Findings {
		if f.Verdict == v {
			n++
		}
	}
	return n
}

// Options bound an exploration.
type Options struct {
	// MaxRuns bounds the reruns; 0 is DefaultMaxRuns.
	MaxRuns int
	// Outcomes to try, by name: those of Outcomes and OAuthOutcomes, and
	// status codes (300-599; a documented one gets its body, another a
	// text body); nil tries every outcome of each site.
	Outcomes []string
	// Fail are the verdicts that fail the script; nil is DefaultFail.
	Fail []Verdict
	// Parallel is how many reruns go at once; 0 or 1 runs them one after
	// the other. The engine must admit that many (engine.Options.MaxRuns).
	Parallel int
}

// Check says whether opts are usable, naming the first unknown outcome.
func (o Options) Check() error {
	for _, name := range o.Outcomes {
		if !knownOutcome(name) {
			return fmt.Errorf("outcome %q: use one of %s, %s or a status code from 300 to 599", name, strings.Join(Outcomes, ", "), strings.Join(OAuthOutcomes, ", "))
		}
	}
	return nil
}

func knownOutcome(name string) bool {
	if slices.Contains(Outcomes, name) || slices.Contains(OAuthOutcomes, name) {
		return true
	}
	n, err := strconv.Atoi(name)
	return err == nil && n >= 300 && n <= 599 && strconv.Itoa(n) == name
}

// BaseError says the run the exploration starts from did not succeed.
type BaseError struct{ Err *dryrun.ScriptError }

func (e *BaseError) Error() string {
	return fmt.Sprintf("the script fails with its fixtures (%s: %s): faults are explored from a run that succeeds; fix the run or its fixtures first", e.Err.Name, e.Err.Message)
}

// Explore runs req with base's fixtures (nil: none), then once per call
// site and outcome. req.Fixtures is replaced: every run is answered by
// parsed fixtures only, so exploration never reaches a service; run may
// be an in-process engine's or a child-isolating one's (a child takes
// parsed fixtures too).
func Explore(ctx context.Context, run engine.RunFunc, snap workspace.Snapshot, req engine.Request, base *restclient.Mock, opts Options) (*Report, error) {
	if opts.MaxRuns <= 0 {
		opts.MaxRuns = DefaultMaxRuns
	}
	if opts.Fail == nil {
		opts.Fail = DefaultFail
	}
	if err := opts.Check(); err != nil {
		return nil, err
	}
	if base == nil {
		base = &restclient.Mock{File: "faults"}
	}
	// The successful run, with the line of each call's statement.
	lines := &lineObserver{}
	var reg *config.Registry
	first := req
	first.Fixtures = engine.Fixtures{Parsed: withFixture(base, nil)}
	first.Observer, first.Statements = lines, true
	decided := req.Decided
	first.Decided = func(k config.Kind, r *config.Registry) {
		reg = r
		if decided != nil {
			decided(k, r)
		}
	}
	res, err := run(ctx, snap, first)
	if err != nil {
		return nil, err
	}
	if res.Error != nil {
		return nil, &BaseError{Err: res.Error}
	}
	rep := &Report{Sites: sites(res.Calls, lines.calls, reg), Findings: []Finding{}, Fail: opts.Fail}
	set := descriptions(ctx, snap, reg, rep)

	// Every (site, outcome) to run, in order; past the cap, cut.
	type job struct {
		site int
		out  outcome
	}
	var jobs []job
	firstCut := -1 // the site of the first pair cut
	for si := range rep.Sites {
		outs, err := siteOutcomes(&rep.Sites[si], reg, set, opts.Outcomes)
		if err != nil {
			return nil, err
		}
		for _, o := range outs {
			if len(jobs) >= opts.MaxRuns {
				if rep.Cut == 0 {
					firstCut = si
				}
				rep.Cut++
				continue
			}
			jobs = append(jobs, job{si, o})
		}
	}
	if rep.Cut > 0 {
		s := rep.Sites[firstCut]
		rep.Notes = append(rep.Notes, fmt.Sprintf("the cap of %d runs cut %d (call site, outcome) pairs, from the call at line %d (%s %s path %q) on: raise it (--max-runs) or name fewer outcomes", opts.MaxRuns, rep.Cut, s.Line, s.Method, s.ServiceID, strings.Join(s.PathParams, "/")))
	}

	// The reruns: no observer, no history, and no answer checks (the
	// fixtures are the outcomes', whose answers are meant to fail).
	req.Observer, req.Statements, req.Keep = nil, false, nil
	rsnap := snap
	rsnap.APIs = nil
	results := make([]*dryrun.Result, len(jobs))
	errs := make([]error, len(jobs))
	workers := max(opts.Parallel, 1)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, max(len(jobs), 1)) {
		wg.Go(func() {
			for i := range next {
				r := req
				r.Fixtures = engine.Fixtures{Parsed: withFixture(base, jobs[i].out.fixture)}
				results[i], errs[i] = run(ctx, rsnap, r)
			}
		})
	}
	for i := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, j := range jobs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		rep.Runs++
		f := classify(j.site, j.out.name, results[i])
		f.Documented, f.Fixture = j.out.documented, j.out.doc
		rep.Findings = append(rep.Findings, f)
	}
	for si := range rep.Sites {
		start := len(rep.Findings)
		end := start
		for i, f := range rep.Findings {
			if f.Site == si {
				start, end = min(start, i), i+1
			}
		}
		misread(rep.Findings[start:end])
	}
	return rep, nil
}

// descriptions is the set of snap's descriptions attached to reg, with
// their answers' schemas, from the store that checks snap's runs' answers
// (its session's: each description is loaded once for the runs and the
// explorations), else one of this call's; nil when none is attached. A
// description that does not load is a note of rep.
func descriptions(ctx context.Context, snap workspace.Snapshot, reg *config.Registry, rep *Report) *openapi.Set {
	if len(snap.APIs) == 0 || reg == nil {
		return nil
	}
	store := snap.AnswerStore()
	if store == nil {
		store = workspace.NewAnswerDescriptions(zap.NewNop(), 0)
	}
	if err := store.Wait(ctx, snap.APIs); err != nil {
		rep.Notes = append(rep.Notes, "the API descriptions did not load in time: only the generic statuses were tried")
		return nil
	}
	docs, _ := store.Docs(snap.APIs)
	for _, d := range docs {
		if d.Err != nil {
			rep.Notes = append(rep.Notes, d.Err.Error()+"; its documented statuses were not tried")
		}
	}
	var attach workspace.Attachments
	return attach.Set(store, snap.APIs, reg)
}

// outcome is one way a site's call is answered in a rerun.
type outcome struct {
	name       string
	documented bool
	doc        json.RawMessage // the fixture, as written
	fixture    *restclient.Fixture
}

// siteOutcomes are the outcomes of s, in order: the statuses its
// operation documents (their bodies from the description), the generic
// statuses it does not, the OAuth failures for an OAuth service, then
// the faults; only those named when names is not nil. It fills s's
// Operation and OAuth.
func siteOutcomes(s *Site, reg *config.Registry, set *openapi.Set, names []string) ([]outcome, error) {
	if svc, ok := reg.Service(s.ServiceID); ok && svc.Auth.Type == config.AuthOAuth {
		s.OAuth = true
	}
	var documented []openapi.Example
	if api, ok := set.API(s.ServiceID); ok && api.Index != nil && !api.Index.Recorded {
		segs := make([]openapi.Seg, len(s.PathParams))
		for i, p := range s.PathParams {
			segs[i] = openapi.Seg{Text: p}
		}
		if op, _ := api.Match(s.Method, segs); op != nil {
			s.Operation = op.Method + " " + op.Path
			documented = api.Index.ErrorExamples(op)
		}
	}
	with := func(f fixtureDoc) fixtureDoc {
		f.ServiceID, f.Method, f.Path = s.ServiceID, s.Method, restclient.PathPattern(s.PathParams)
		if f.Times == 0 {
			f.Times = 1
		}
		return f
	}
	text := func(code int) fixtureDoc {
		return with(fixtureDoc{Status: code, BodyText: http.StatusText(code)})
	}
	type planned struct {
		name       string
		documented bool
		fixture    fixtureDoc
	}
	var plan []planned
	seen := map[string]bool{}
	add := func(p planned) {
		if !seen[p.name] && (names == nil || slices.Contains(names, p.name)) {
			seen[p.name] = true
			plan = append(plan, p)
		}
	}
	var body401 *openapi.Example
	for _, ex := range documented {
		name := strconv.Itoa(ex.Status)
		if s.OAuth && ex.Status == http.StatusUnauthorized {
			body401 = &ex
			continue // the 401 of an OAuth service is retried: Retry401
		}
		add(planned{name, true, statusFixture(with, ex)})
	}
	for _, name := range Outcomes[:3] {
		add(planned{name, false, text(atoi(name))})
	}
	for _, name := range names {
		if n, err := strconv.Atoi(name); err == nil && !(s.OAuth && n == http.StatusUnauthorized) {
			add(planned{name, false, text(n)})
		}
	}
	if s.OAuth {
		add(planned{restclient.CodeTokenFailed, false, with(fixtureDoc{Fault: restclient.CodeTokenFailed})})
		f := text(http.StatusUnauthorized)
		if body401 != nil {
			f = statusFixture(with, *body401)
		}
		f.Times = 2
		add(planned{Retry401, body401 != nil, f})
	}
	for _, name := range Outcomes[3:] {
		add(planned{name, false, with(fixtureDoc{Fault: name})})
	}
	if len(plan) == 0 {
		return nil, nil
	}
	// One document for the site's fixtures: parsed once.
	list := make([]any, len(plan))
	for i, p := range plan {
		list[i] = p.fixture
	}
	doc, err := json.Marshal(list)
	if err != nil {
		return nil, err
	}
	m, err := restclient.ParseMock("faults", doc)
	if err != nil {
		return nil, fmt.Errorf("the fixtures of %s %s path %q: %w", s.Method, s.ServiceID, strings.Join(s.PathParams, "/"), err)
	}
	out := make([]outcome, len(plan))
	for i, p := range plan {
		one, _ := json.Marshal(p.fixture)
		out[i] = outcome{name: p.name, documented: p.documented, doc: one, fixture: m.Fixtures[i]}
	}
	return out, nil
}

// fixtureDoc is an outcome's fixture as written, keys in the order a
// reader scans a fixture.
type fixtureDoc struct {
	ServiceID string          `json:"serviceId"`
	Method    string          `json:"method"`
	Path      string          `json:"path"`
	Times     int             `json:"times"`
	Status    int             `json:"status,omitempty"`
	Body      json.RawMessage `json:"body,omitempty"`
	BodyText  string          `json:"bodyText,omitempty"`
	Fault     string          `json:"fault,omitempty"`
}

// statusFixture answers with a documented status and its body; an answer
// without a JSON body gets the status text.
func statusFixture(with func(fixtureDoc) fixtureDoc, ex openapi.Example) fixtureDoc {
	if ex.Body != nil {
		return with(fixtureDoc{Status: ex.Status, Body: ex.Body})
	}
	return with(fixtureDoc{Status: ex.Status, BodyText: http.StatusText(ex.Status)})
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// lineObserver keeps the line of the statement each call was made in.
type lineObserver struct {
	line  int
	calls []int
}

func (o *lineObserver) CallMade(i int, _ *restclient.Call) {
	for len(o.calls) <= i {
		o.calls = append(o.calls, 0)
	}
	o.calls[i] = o.line
}
func (o *lineObserver) CallAnswered(int, *restclient.Call) {}
func (o *lineObserver) Log(dryrun.LogEntry)                {}
func (o *lineObserver) Statement(line, _ int)              { o.line = line }
func (o *lineObserver) Done(*dryrun.Result)                {}

// sites returns the first call of each serviceId, method and pathParams
// the run made; a call whose URL is not under its service's address (or
// that failed before it had one) is no site.
func sites(calls []*restclient.Call, lines []int, reg *config.Registry) []Site {
	out := []Site{}
	seen := map[string]bool{}
	for i, c := range calls {
		svc, ok := reg.Service(c.ServiceID)
		if !ok || c.URL == "" {
			continue
		}
		params, _, ok := restclient.SplitCallURL(svc.URL, c.URL)
		if !ok {
			continue
		}
		key := c.ServiceID + "\x00" + c.Method + "\x00" + restclient.PathPattern(params)
		if seen[key] {
			continue
		}
		seen[key] = true
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		out = append(out, Site{ServiceID: c.ServiceID, Method: c.Method, PathParams: params, Line: line, Call: i})
	}
	return out
}

// withFixture is a fresh Mock (its own counts) of base's fixtures, after
// fx when there is one.
func withFixture(base *restclient.Mock, fx *restclient.Fixture) *restclient.Mock {
	m := &restclient.Mock{File: base.File, Advice: base.Advice, Script: base.Script}
	m.Fixtures = make([]*restclient.Fixture, 0, len(base.Fixtures)+1)
	if fx != nil {
		m.Fixtures = append(m.Fixtures, fx)
	}
	m.Fixtures = append(m.Fixtures, base.Fixtures...)
	return m
}

// classify gives the verdict of one rerun; misread is decided later,
// from the site's other outcomes.
func classify(site int, outcome string, res *dryrun.Result) Finding {
	f := Finding{Site: site, Outcome: outcome, Error: res.Error}
	e := res.Error
	switch {
	case e == nil:
		f.Verdict, f.Result = Handled, res.Result
	case e.Name == "RestClientError" && e.Code == restclient.CodeNoFixture:
		f.Verdict, f.Note = Unanswered, "after the failure the script makes a call no fixture answers; add one to see what it does"
	case e.Name == "RestClientError", e.Name == "ResponseError":
		f.Verdict = Escaped
	case e.Name == "TypeError", e.Name == "ReferenceError", e.Name == "RangeError",
		e.Name == "TimeoutError", e.Name == "MemoryLimitError", e.Name == "InternalError":
		f.Verdict = Crashed
	default:
		f.Verdict = Handled
	}
	return f
}

// isStatus reports whether the outcome is an answer of the service (the
// contract's exception, with status and status.code); the others are
// RestClientErrors.
func isStatus(outcome string) bool {
	_, err := strconv.Atoi(outcome)
	return err == nil || outcome == Retry401
}

// misread marks the outcomes of one site that break the contract's
// foreign-error rule, as the script's results tell it:
//
//   - a RestClientError handled by returning what the script returns for
//     a status it tells from an undocumented 500: it took the failure
//     for that answer of the service (a timeout read as a 404). One
//     handled as the 500 is, or as every status is, is a fallback.
//     Without a 500 among the outcomes this is not judged.
//   - an answer of the service handled by a result or an error of the
//     script's own that says "undefined" where a RestClientError's says
//     what happened: the script read the fields of a foreign error
//     (e.message, e.code), which the contract's exception does not have.
func misread(fs []Finding) {
	var server *Finding
	for i := range fs {
		if fs[i].Outcome == "500" {
			server = &fs[i]
		}
	}
	same := func(a, b *Finding) bool {
		return a.Verdict == Handled && b.Verdict == Handled && string(a.Result) == string(b.Result)
	}
	// Reverse first, on the verdicts as classified.
	foreignSays := false
	for i := range fs {
		if !isStatus(fs[i].Outcome) && fs[i].Verdict == Handled && !saysUndefined(&fs[i]) {
			foreignSays = true
		}
	}
	for i := range fs {
		f := &fs[i]
		if foreignSays && isStatus(f.Outcome) && f.Verdict == Handled && saysUndefined(f) {
			f.Verdict = Misread
			f.Note = fmt.Sprintf("for a %s answer the script's own %s says \"undefined\" where a RestClientError's says what happened: it reads e.message or e.code, which the service's answer does not have (it has status and body; test e.status && e.status.code)", f.Outcome, ownWhat(f))
		}
	}
	if server == nil {
		return
	}
	for i := range fs {
		f := &fs[i]
		if isStatus(f.Outcome) || f.Verdict != Handled || same(server, f) {
			continue
		}
		for j := range fs {
			s := &fs[j]
			if isStatus(s.Outcome) && s.Outcome != "500" && same(s, f) {
				f.Verdict = Misread
				f.Note = fmt.Sprintf("the script returns for %s what it returns for a %s answer, which it tells from a 500: a RestClientError is no answer of the service (it has no status; test e.status && e.status.code)", f.Outcome, s.Outcome)
				break
			}
		}
	}
}

// saysUndefined reports whether a handled outcome's result, or the
// message of the script's own error, holds the text "undefined".
func saysUndefined(f *Finding) bool {
	if f.Error != nil {
		return strings.Contains(f.Error.Message, "undefined")
	}
	return strings.Contains(string(f.Result), "undefined")
}

func ownWhat(f *Finding) string {
	if f.Error != nil {
		return "error"
	}
	return "result"
}
