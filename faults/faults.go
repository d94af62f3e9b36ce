// Package faults proves a script's error paths (issue 36): given a run
// that succeeds with its fixtures, it runs the script again once per call
// site and outcome, with that call answered by the outcome (a status the
// contract throws, or a fault fixture: restclient.Faults), and says for
// each whether the script survived it.
//
// This is the explorer's core over the run engine, in process; the
// surfaces (restls faults, restls test --faults, the editor's code lens,
// the designer's Faults tab) are still to be built on it.
package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// Outcomes are the generic outcomes, tried at every call site in this
// order: an undocumented 500 with a text body, a 404, a 400, then the
// faults a status cannot express.
var Outcomes = []string{"500", "404", "400",
	restclient.CodeNotJSON, restclient.CodeConnectTimeout, restclient.CodeReadTimeout, restclient.CodeConnectionRefused}

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
	// Misread: a RestClientError treated as an answer of the service: the
	// script returned for it what it returns for one status while it
	// tells that status from another.
	Misread Verdict = "misread"
	// Unanswered: after the failure the script made a call no fixture
	// answers, so what it does then is unknown: add a fixture for it.
	Unanswered Verdict = "unanswered"
)

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
}

// Finding is the verdict of one outcome at one site.
type Finding struct {
	Site    int     `json:"site"` // index in Report.Sites
	Outcome string  `json:"outcome"`
	Verdict Verdict `json:"verdict"`
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
}

// Options bound an exploration.
type Options struct {
	// MaxRuns bounds the reruns; 0 is DefaultMaxRuns.
	MaxRuns int
	// Outcomes to try; nil is Outcomes.
	Outcomes []string
}

// BaseError says the run the exploration starts from did not succeed.
type BaseError struct{ Err *dryrun.ScriptError }

func (e *BaseError) Error() string {
	return fmt.Sprintf("the script fails with its fixtures (%s: %s): faults are explored from a run that succeeds; fix the run or its fixtures first", e.Err.Name, e.Err.Message)
}

// Explore runs req with base's fixtures (nil: none), then once per call
// site and outcome. req.Fixtures is replaced: every run is answered by
// parsed fixtures only, so exploration never reaches a service; run must
// therefore be an in-process engine's (engine.InProcess).
func Explore(ctx context.Context, run engine.RunFunc, snap workspace.Snapshot, req engine.Request, base *restclient.Mock, opts Options) (*Report, error) {
	if opts.MaxRuns <= 0 {
		opts.MaxRuns = DefaultMaxRuns
	}
	if opts.Outcomes == nil {
		opts.Outcomes = Outcomes
	}
	for _, o := range opts.Outcomes {
		if !slices.Contains(Outcomes, o) {
			return nil, fmt.Errorf("outcome %q: use one of %s", o, strings.Join(Outcomes, ", "))
		}
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
	rep := &Report{Sites: sites(res.Calls, lines.calls, reg), Findings: []Finding{}}

	req.Observer, req.Statements, req.Keep = nil, false, nil
	for si, s := range rep.Sites {
		start := len(rep.Findings)
		for _, o := range opts.Outcomes {
			if rep.Runs >= opts.MaxRuns {
				rep.Cut++
				continue
			}
			fx, err := faultFixture(s, o)
			if err != nil {
				return nil, err
			}
			r := req
			r.Fixtures = engine.Fixtures{Parsed: withFixture(base, fx)}
			out, err := run(ctx, snap, r)
			if err != nil {
				return nil, err
			}
			rep.Runs++
			rep.Findings = append(rep.Findings, classify(si, o, out))
		}
		misread(rep.Findings[start:])
	}
	return rep, nil
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
	var out []Site
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

// faultFixture answers the site's first call (times: 1; a later call
// with the same path is the base fixtures') with the outcome.
func faultFixture(s Site, outcome string) (*restclient.Fixture, error) {
	f := map[string]any{"serviceId": s.ServiceID, "method": s.Method, "path": restclient.PathPattern(s.PathParams), "times": 1}
	if code, err := strconv.Atoi(outcome); err == nil {
		f["status"] = code
		f["bodyText"] = http.StatusText(code)
	} else {
		f["fault"] = outcome
	}
	doc, err := json.Marshal([]any{f})
	if err != nil {
		return nil, err
	}
	m, err := restclient.ParseMock("faults", doc)
	if err != nil {
		return nil, err
	}
	return m.Fixtures[0], nil
}

// withFixture is a fresh Mock (its own counts) of base's fixtures, after
// fx when there is one.
func withFixture(base *restclient.Mock, fx *restclient.Fixture) *restclient.Mock {
	m := &restclient.Mock{File: base.File, Advice: base.Advice, Script: base.Script}
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

// misread marks the RestClientError outcomes of one site that the script
// handled by returning what it returns for a status it tells from an
// undocumented 500: it took the failure for that answer of the service
// (a timeout read as a 404). A failure handled as the 500 is, or as
// every status is, is a fallback, not a misreading. Without a 500 among
// the outcomes nothing is marked.
func misread(fs []Finding) {
	var server *Finding
	for i := range fs {
		if fs[i].Outcome == "500" {
			server = &fs[i]
		}
	}
	if server == nil {
		return
	}
	for i := range fs {
		f := &fs[i]
		if isStatus(f.Outcome) || f.Verdict != Handled || server.Verdict == Handled && string(server.Result) == string(f.Result) {
			continue
		}
		for _, s := range fs {
			if isStatus(s.Outcome) && s.Outcome != "500" && s.Verdict == Handled && string(s.Result) == string(f.Result) {
				f.Verdict = Misread
				f.Note = fmt.Sprintf("the script returns for %s what it returns for a %s answer, which it tells from a 500: a RestClientError is no answer of the service (it has no status; test e.status && e.status.code)", f.Outcome, s.Outcome)
				break
			}
		}
	}
}

func isStatus(outcome string) bool {
	_, err := strconv.Atoi(outcome)
	return err == nil
}
