package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/faults"
	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// FaultsIn is the faults tool's input: restls faults' arguments.
type FaultsIn struct {
	ScriptArg
	Input any `json:"input,omitempty" jsonschema:"context.input: the JSON value the script reads (default {})"`
	// Fixtures and FixturesFile answer the run the exploration starts
	// from; neither means the fixtures file beside the script, if any.
	Fixtures     string   `json:"fixtures,omitempty" jsonschema:"a fixtures document (YAML or JSON, restls://schema/mock.schema.json) with which the script runs successfully"`
	FixturesFile string   `json:"fixturesFile,omitempty" jsonschema:"a fixtures file, relative to the project root; default: the one beside the script (NAME.mock.yaml), if any"`
	Outcomes     []string `json:"outcomes,omitempty" jsonschema:"the outcomes to try at each call site: 500, 404, 400, not-json, connect-timeout, read-timeout, connection-refused, the OAuth ones (token-failed, 401-after-retry) or a status code from 300 to 599 (default: every outcome of each site, its operation's documented statuses included, as restls faults tries them)"`
	MaxRuns      int      `json:"maxRuns,omitempty" jsonschema:"at most this many reruns (default and most: restls faults' default); cut counts the (call site, outcome) pairs left out"`
	Fail         []string `json:"fail,omitempty" jsonschema:"the verdicts that fail the script: escaped, crashed, misread, unanswered (default: the project file's faults.fail, else crashed and misread)"`
}

// FaultsOut is the faults tool's answer: restls faults --json's report,
// each finding with its call site.
type FaultsOut struct {
	// Sites are the call sites: the first call of each serviceId,
	// method and path, with the line of its statement.
	Sites []faults.Site `json:"sites"`
	// Findings are the verdict of each outcome at each site.
	Findings []FaultFinding `json:"findings"`
	Runs     int            `json:"runs"`
	Cut      int            `json:"cut,omitempty"`
	// Notes say what the agent should know about the exploration itself.
	Notes []string `json:"notes,omitempty"`
	// Fail are the verdicts that fail the script.
	Fail []faults.Verdict `json:"fail"`
	// Verdicts count the findings by verdict.
	Verdicts map[string]int `json:"verdicts"`
	// OK: no finding has a verdict of Fail (restls faults exits 0).
	OK bool `json:"ok"`
}

// FaultFinding is a finding with the call site it is at.
type FaultFinding struct {
	faults.Finding
	// Line is the site's line, ServiceID, Method and Path its call.
	Line      int    `json:"line"`
	ServiceID string `json:"serviceId"`
	Method    string `json:"method"`
	Path      string `json:"path"`
}

func (s *Server) exploreFaults(ctx context.Context, _ *sdk.CallToolRequest, in FaultsIn) (*sdk.CallToolResult, FaultsOut, error) {
	out := FaultsOut{}
	if in.Fixtures != "" && in.FixturesFile != "" {
		return nil, out, errors.New("give fixtures or fixturesFile, not both")
	}
	if len(in.Fixtures) > s.o.Limits.Text {
		return nil, out, fmt.Errorf("fixtures is %d bytes, above the %d limit: give a fixturesFile", len(in.Fixtures), s.o.Limits.Text)
	}
	if len(in.Outcomes) > s.o.Limits.Items {
		return nil, out, fmt.Errorf("%d outcomes, above the %d limit", len(in.Outcomes), s.o.Limits.Items)
	}
	if in.MaxRuns < 0 || in.MaxRuns > faults.DefaultMaxRuns {
		return nil, out, fmt.Errorf("maxRuns %d: give 1 to %d, or leave it out", in.MaxRuns, faults.DefaultMaxRuns)
	}
	opts := faults.Options{MaxRuns: in.MaxRuns, Outcomes: in.Outcomes}
	if err := opts.Check(); err != nil {
		return nil, out, err
	}
	opts.Fail = s.o.FaultsFail
	if in.Fail != nil {
		var err error
		if opts.Fail, err = faults.ParseVerdicts(in.Fail); err != nil {
			return nil, out, fmt.Errorf("fail: %w", err)
		}
	}
	sc, err := s.script(ctx, in.ScriptArg)
	if err != nil {
		return nil, out, err
	}
	req := engine.Request{Text: sc.text, Kind: sc.kind, Show: s.rel}
	if in.Path != "" {
		req.Path = sc.abs
	} else {
		req.Name = untitled
	}
	if in.Input != nil {
		data, err := json.Marshal(in.Input)
		if err != nil {
			return nil, out, fmt.Errorf("input: %w", err)
		}
		if len(data) > s.o.Limits.Text {
			return nil, out, fmt.Errorf("input is %d bytes, above the %d limit", len(data), s.o.Limits.Text)
		}
		req.Input = data
	}
	base, err := s.baseFixtures(in, sc)
	if err != nil {
		return nil, out, err
	}
	// Every run is answered by parsed fixtures only (faults.Explore):
	// nothing reaches a service, and on /mcp the gate admits each as a
	// run with fixtures.
	rep, err := faults.Explore(ctx, s.o.Tests, sc.snap, req, base, opts)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, out, fmt.Errorf("the exploration took longer than a call may (%v): a rerun may hang after its failure until the run's time limit; give fewer outcomes, a lower maxRuns, or make the script give up after a failure", s.o.Limits.Time)
	}
	if err != nil {
		var fe *engine.FixturesError
		if errors.As(err, &fe) {
			return nil, out, fmt.Errorf("the fixtures do not load: %w; fix them (restls://schema/mock.schema.json)", err)
		}
		return nil, out, err
	}
	out.Sites, out.Runs, out.Cut, out.Notes, out.Fail, out.OK = rep.Sites, rep.Runs, rep.Cut, rep.Notes, rep.Fail, rep.Failed() == 0
	out.Findings, out.Verdicts = make([]FaultFinding, 0, len(rep.Findings)), map[string]int{}
	if out.Sites == nil {
		out.Sites = []faults.Site{}
	}
	for _, f := range rep.Findings {
		ff := FaultFinding{Finding: f}
		if f.Site >= 0 && f.Site < len(rep.Sites) {
			site := rep.Sites[f.Site]
			ff.Line, ff.ServiceID, ff.Method, ff.Path = site.Line, site.ServiceID, site.Method, restclient.PathPattern(site.PathParams)
		}
		out.Findings = append(out.Findings, ff)
		out.Verdicts[string(f.Verdict)]++
	}
	return nil, out, nil
}

// baseFixtures are the fixtures the exploration starts from: in's, else
// the file beside the script; nil for none.
func (s *Server) baseFixtures(in FaultsIn, sc *script) (*restclient.Mock, error) {
	var m *restclient.Mock
	var err error
	switch {
	case in.Fixtures != "":
		m, err = restclient.ParseMock("fixtures", []byte(in.Fixtures))
	case in.FixturesFile != "":
		abs, ierr := input.Inside(s.o.Root, s.abs(in.FixturesFile), input.Fixtures)
		if ierr != nil {
			if errors.Is(ierr, input.ErrOutside) {
				return nil, s.errOutside(in.FixturesFile)
			}
			return nil, fmt.Errorf("fixturesFile %s: %v", in.FixturesFile, unwrapPath(ierr))
		}
		m, err = restclient.LoadMockAs(abs, s.rel(abs))
	case in.Path != "":
		if beside := workspace.MockFileBeside(sc.abs); beside != "" {
			if _, ierr := input.Inside(s.o.Root, beside, input.Fixtures); ierr != nil {
				return nil, s.errOutside(s.rel(beside))
			}
			m, err = restclient.LoadMockAs(beside, s.rel(beside))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("the fixtures do not load: %w; fix them (restls://schema/mock.schema.json)", err)
	}
	if m != nil {
		m.Script = s.rel(sc.abs)
	}
	return m, nil
}
