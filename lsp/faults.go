package lsp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/faults"
	"github.com/restls/restls/hints"
	"github.com/restls/restls/workspace"
)

// Fault exploration's command and the exploration kept per document,
// which its code lens (faults_lens.go), its warnings
// (faults_diagnostics.go) and their quick fix (faults_action.go) read.

// The editor's surface of fault exploration (issue 36): a command that
// explores the open script (faults.Explore, through Options.Faults), then
// a "Faults" code lens above each call site explored, a warning on each
// call site whose failures fail (crash, misread), and a quick fix that
// adds a failing outcome as a case of the script's test file.
const (
	// CommandExploreFaults explores the open script ({uri, ...}: the
	// ExploreFaultsArgs) and answers the table restls faults prints
	// (FaultsResult).
	CommandExploreFaults = "restls.exploreFaults"
	// CodeFault is the warning on a call site an outcome of which the
	// script does not survive, after an exploration of this text.
	CodeFault = "fault"
)

// FaultOptions are what restls.exploreFaults needs of its server.
type FaultOptions struct {
	// Run runs the reruns (faults.Explore): an in-process engine's Run,
	// behind web's gate over HTTP.
	Run engine.RunFunc
	// Fail are the verdicts that fail (restls.yaml's faults.fail); nil is
	// faults.DefaultFail.
	Fail []faults.Verdict
}

// ErrNoFaults is what restls.exploreFaults answers when the server was
// built without an engine for explorations.
var ErrNoFaults = errors.New("fault exploration is not available in this restls build: it was started without an in-process run engine")

// ExploreFaultsArgs are the arguments of restls.exploreFaults.
type ExploreFaultsArgs struct {
	URI string `json:"uri"`
	// Kind is the script's kind when the user names one; "" is the kind
	// rule's.
	Kind string `json:"kind,omitempty"`
	// Input is context.input as JSON; absent is {}.
	Input json.RawMessage `json:"input,omitempty"`
	// Mock is a fixtures document (YAML or JSON, the designer's Mocks
	// tab) the successful run is answered by; absent, the fixtures file
	// beside the script (NAME.mock.yaml), in sessions that may read files.
	Mock *string `json:"mock,omitempty"`
	// Outcomes to try; absent is all (faults.Outcomes).
	Outcomes []string `json:"outcomes,omitempty"`
	// MaxRuns bounds the reruns; 0 is faults.DefaultMaxRuns.
	MaxRuns int `json:"maxRuns,omitempty"`
}

func (a *ExploreFaultsArgs) complete() bool { return a.URI != "" }

// FaultsResult is an exploration as restls faults prints it: per call
// site, each outcome's verdict and what happened.
type FaultsResult struct {
	// Script is the script as the session shows paths.
	Script string `json:"script"`
	// Fixtures names what answered the successful run ("" for none).
	Fixtures string `json:"fixtures"`
	// Summary is the CLI table's first line: "orders.js: 1 call site, 7
	// runs, 1 handled, 2 escaped, 4 crashed: 4 failing".
	Summary string          `json:"summary"`
	Sites   []FaultSiteView `json:"sites"`
	Runs    int             `json:"runs"`
	// Cut counts the (call site, outcome) pairs MaxRuns left out.
	Cut int `json:"cut"`
	// Failing counts the findings whose verdict fails (crashed, misread,
	// or restls.yaml's faults.fail).
	Failing int `json:"failing"`
	// Notes say what the exploration left out (the run cap, outcomes
	// that do not apply).
	Notes []string `json:"notes"`
}

// FaultSiteView is one call site of a FaultsResult.
type FaultSiteView struct {
	// Line is the 1-based line of the statement that makes the call.
	Line      int    `json:"line"`
	Method    string `json:"method"`
	ServiceID string `json:"serviceId"`
	// Path is the call's pathParams joined with "/".
	Path string `json:"path"`
	// Operation is the described operation the call matched ("GET
	// /orders/{id}"), "" when none.
	Operation string `json:"operation,omitempty"`
	// Tally is "7 handled, 1 crashed", the code lens' text.
	Tally    string             `json:"tally"`
	Findings []FaultFindingView `json:"findings"`
}

// FaultFindingView is one outcome at a call site.
type FaultFindingView struct {
	Outcome string `json:"outcome"`
	// Verdict is handled, escaped, crashed, misread or unanswered.
	Verdict string `json:"verdict"`
	// Detail is what happened, as restls faults prints it.
	Detail string `json:"detail"`
	// Fails is set for the verdicts that fail (Report.Fails).
	Fails bool `json:"fails"`
}

// explored is the last exploration of an open document: valid while the
// document's text is the one explored.
type explored struct {
	sum   [sha256.Size]byte
	rep   *faults.Report
	input json.RawMessage
	// fixtures is the fixtures file the run was answered by, "" for
	// none or a document.
	fixtures string
}

// exploreFaults answers restls.exploreFaults.
func (s *session) exploreFaults(ctx context.Context, c commandCall, a *ExploreFaultsArgs) (*FaultsResult, error) {
	const cmd = CommandExploreFaults
	v, ok := s.viewOf(canonicalURI(a.URI))
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %s is not open in the editor; open it first", cmd, a.URI)
	}
	var kind config.Kind
	if a.Kind != "" {
		k, err := config.ParseKind(a.Kind)
		if err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", cmd, err)
		}
		kind = k
	}
	opts := faults.Options{MaxRuns: a.MaxRuns, Outcomes: a.Outcomes, Fail: s.srv.opts.Faults.Fail}
	if err := opts.Check(); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", cmd, err)
	}
	run := s.srv.opts.Faults.Run
	if run == nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, cmd+": "+ErrNoFaults.Error())
	}
	if !s.opts.MayRun {
		return nil, s.refused(cmd)
	}
	var input json.RawMessage
	if len(a.Input) > 0 && string(a.Input) != "null" {
		input = a.Input
	}
	show := s.showPath(v)
	req := engine.Request{Path: v.d.path, Name: show(scriptPath(v.d.uri, v.d.path)), Text: v.d.doc.Text(), Kind: kind, Input: input, Show: show}
	if req.Name == "" {
		req.Name = uri.Basename(v.d.uri)
	}
	switch {
	case a.Mock != nil:
		req.Fixtures = engine.Fixtures{Inline: []byte(*a.Mock), Name: "the Mocks tab"}
	case s.opts.MayUseFiles:
		req.Fixtures.Beside = true
	}
	base, err := faults.Base(req)
	if err != nil {
		return nil, s.runError(ctx, cmd, a.URI, err)
	}
	ctx, done := s.detach(ctx, c.req)
	defer done()
	prog := s.startProgress(ctx, c.token, "restls: exploring the faults of "+uri.Basename(v.d.uri))
	rep, err := faults.Explore(ctx, run, v.ws, req, base, opts)
	if err != nil {
		prog.end("failed")
		var be *faults.BaseError
		if errors.As(err, &be) {
			why := ""
			switch {
			case base != nil:
			case req.Fixtures.Beside:
				why = " (it had no fixtures: write them beside it, as " + filepath.Base(workspace.MockCandidates(v.d.path)[0]) + ")"
			default:
				why = " (it had no fixtures: give them in the Mocks tab)"
			}
			return nil, jsonrpc2.Errorf(codeRequestFailed, "%s: %s: %v%s", cmd, req.Name, err, why)
		}
		return nil, s.runError(ctx, cmd, a.URI, err)
	}
	prog.end("done")
	e := &explored{sum: sha256.Sum256([]byte(req.Text)), rep: rep, input: input}
	if req.Fixtures.Beside && base != nil {
		e.fixtures = workspace.MockFileBeside(v.d.path)
	}
	s.keepExplored(v.d, e)
	out := faultsView(req.Name, rep)
	if base != nil {
		out.Fixtures = base.File
	}
	return out, nil
}

// faultsView is rep of script as the command answers it.
func faultsView(script string, rep *faults.Report) *FaultsResult {
	out := &FaultsResult{Script: script, Summary: rep.Summary(script), Sites: []FaultSiteView{}, Runs: rep.Runs, Cut: rep.Cut, Failing: rep.Failed(), Notes: rep.Notes}
	for si, site := range rep.Sites {
		sv := FaultSiteView{Line: site.Line, Method: site.Method, ServiceID: site.ServiceID, Path: strings.Join(site.PathParams, "/"), Operation: site.Operation,
			Tally: tally(rep, si), Findings: []FaultFindingView{}}
		for _, f := range rep.Findings {
			if f.Site == si {
				sv.Findings = append(sv.Findings, FaultFindingView{Outcome: f.Outcome, Verdict: string(f.Verdict), Detail: f.Detail(), Fails: rep.Fails(f)})
			}
		}
		out.Sites = append(out.Sites, sv)
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	return out
}

// tally is the verdicts of site's findings, counted in faults.Verdicts'
// order: "7 handled, 1 crashed".
func tally(rep *faults.Report, site int) string {
	var parts []string
	for _, v := range faults.Verdicts {
		n := 0
		for _, f := range rep.Findings {
			if f.Site == site && f.Verdict == v {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	return strings.Join(parts, ", ")
}

// keepExplored remembers d's exploration and has its warnings published
// (and, after them, the lenses asked for again).
func (s *session) keepExplored(d *document, e *explored) {
	s.mu.Lock()
	if s.explored == nil {
		s.explored = map[uri.URI]*explored{}
	}
	s.explored[d.uri] = e
	s.mu.Unlock()
	s.diagnostics.mark(false, d.uri)
}

// exploredOf is d's exploration when it explored d's text, else nil.
func (s *session) exploredOf(d *document) *explored {
	s.mu.Lock()
	e := s.explored[d.uri]
	s.mu.Unlock()
	if e == nil || e.sum != sha256.Sum256([]byte(d.doc.Text())) {
		return nil
	}
	return e
}

// forgetExplored drops a closed document's exploration.
func (s *session) forgetExplored(u uri.URI) {
	s.mu.Lock()
	delete(s.explored, u)
	s.mu.Unlock()
}

// placeSites is where each site of rep is in doc: the name of the call
// with the site's serviceId and method nearest at or after the site's
// statement line, else that line's start.
func placeSites(doc *hints.Document, m *mapper, rep *faults.Report) []hints.Range {
	calls := hints.CallSites(doc)
	out := make([]hints.Range, len(rep.Sites))
	for i, site := range rep.Sites {
		best, bestLine := -1, 0
		for j, c := range calls {
			if c.Dynamic || c.ServiceID != site.ServiceID || !strings.EqualFold(c.Method, site.Method) {
				continue
			}
			line := int(m.position(c.NameRange.Start).Line) + 1
			if line >= site.Line && (best < 0 || line < bestLine) {
				best, bestLine = j, line
			}
		}
		if best >= 0 {
			out[i] = calls[best].NameRange
			continue
		}
		start, end := m.fromRange(m.lineRange(site.Line))
		out[i] = hints.Range{Start: start, End: end}
	}
	return out
}
