package mcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/check"
	"github.com/restls/restls/hints"
	"github.com/restls/restls/runtime/curlin"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// CurlIn is the curl tool's input.
type CurlIn struct {
	Curl string `json:"curl" jsonschema:"a curl command line, as copied from a browser's developer tools or an API's documentation"`
	Kind string `json:"kind,omitempty" jsonschema:"the script kind whose services the URL is matched against (default scriptService)"`
}

// CurlOut is the curl tool's answer.
type CurlOut struct {
	// Call is the api.rest.v1 call's JavaScript text.
	Call      string `json:"call"`
	ServiceID string `json:"serviceId"`
	Function  string `json:"function"`
	// Notes say what was left out or changed and why (an Authorization
	// header: the configuration's authorization replaces it).
	Notes []string `json:"notes,omitempty"`
}

func (s *Server) curl(ctx context.Context, _ *sdk.CallToolRequest, in CurlIn) (*sdk.CallToolResult, CurlOut, error) {
	if strings.TrimSpace(in.Curl) == "" {
		return nil, CurlOut{}, errors.New("give a curl command line")
	}
	if len(in.Curl) > curlin.MaxInputBytes {
		return nil, CurlOut{}, fmt.Errorf("the command line is %d bytes, above the %d limit", len(in.Curl), curlin.MaxInputBytes)
	}
	kind, err := kindArg(in.Kind)
	if err != nil {
		return nil, CurlOut{}, err
	}
	snap, err := s.snapshot(ctx, "")
	if err != nil {
		return nil, CurlOut{}, err
	}
	reg := workspaceUsable(snap.Config.For(kind))
	if reg == nil {
		return nil, CurlOut{}, fmt.Errorf("no services are configured for %s: %s", kind, snap.Config.For(kind).HintState().Message())
	}
	c, err := curlin.FromCurl(in.Curl, reg)
	if err != nil {
		return nil, CurlOut{}, err
	}
	return nil, CurlOut{Call: c.Text(), ServiceID: c.ServiceID, Function: c.Function, Notes: c.Notes}, nil
}

// FixturesOut is the fixtures tool's answer.
type FixturesOut struct {
	// File is the fixtures file beside the script (relative to the
	// root), Exists whether it is there already; Text is its whole text
	// with the new fixtures added: write it to File.
	File   string `json:"file"`
	Exists bool   `json:"exists"`
	Text   string `json:"text"`
	// Added are the calls given a fixture, Skipped those not, and why.
	Added   []FixtureNote `json:"added"`
	Skipped []FixtureNote `json:"skipped,omitempty"`
}

// FixtureNote is one call of the script and what became of it.
type FixtureNote struct {
	Line      int    `json:"line"`
	ServiceID string `json:"serviceId"`
	Method    string `json:"method"`
	Path      string `json:"path,omitempty"`
	// Operation is the description's operation the fixture answers as;
	// Reason why no fixture was made.
	Operation string `json:"operation,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

func (s *Server) fixtures(ctx context.Context, _ *sdk.CallToolRequest, in ScriptArg) (*sdk.CallToolResult, FixturesOut, error) {
	if in.Path == "" {
		return nil, FixturesOut{}, errors.New("give the script's path (relative to the project root): its fixtures file lives beside it; give text too for a script not saved yet")
	}
	sc, err := s.script(ctx, in)
	if err != nil {
		return nil, FixturesOut{}, err
	}
	file := workspace.FixtureFile(sc.abs)
	if err := workspace.FixtureWritable(sc.abs, file); err != nil {
		return nil, FixturesOut{}, fmt.Errorf("%s: %v", s.rel(file), err)
	}
	data, err := workspace.FixtureText(sc.abs, file)
	if err != nil {
		return nil, FixturesOut{}, fmt.Errorf("%s: %v", s.rel(file), unwrapPath(err))
	}
	out := FixturesOut{File: s.rel(file), Exists: data != nil, Added: []FixtureNote{}}
	set := s.answerAPIs(ctx, sc.reg)
	var fixtures []restclient.NewFixture
	for _, c := range hints.CallSites(sc.doc) {
		if c.Method == "" {
			continue
		}
		n := FixtureNote{Line: sc.pos(c.Call.Start).Line, ServiceID: c.ServiceID, Method: c.Method, Path: c.Path}
		switch {
		case c.Dynamic || c.ServiceID == "":
			n.Reason = "the serviceId is computed at run time: write its fixture by hand"
			out.Skipped = append(out.Skipped, n)
			continue
		case sc.reg == nil:
			n.Reason = "no services are configured for " + string(sc.kind)
			out.Skipped = append(out.Skipped, n)
			continue
		}
		shape := workspace.CallShapeOf(c.ServiceID, c.Method, c.Path)
		if workspace.Answered(data, shape) {
			n.Reason = "a fixture in the file answers it already"
			out.Skipped = append(out.Skipped, n)
			continue
		}
		f, op, err := workspace.FixtureFor(set, shape)
		if err != nil {
			n.Reason = err.Error()
			out.Skipped = append(out.Skipped, n)
			continue
		}
		n.Operation = op
		fixtures = append(fixtures, f)
		out.Added = append(out.Added, n)
	}
	text := data
	if len(fixtures) > 0 {
		if text, err = workspace.AddFixtures(file, data, fixtures); err != nil {
			return nil, out, err
		}
	}
	out.Text = string(text)
	return nil, out, nil
}

// ImpactIn is the impact tool's input.
type ImpactIn struct {
	Since string `json:"since" jsonschema:"the git revision (a branch, a tag, HEAD~1) whose configuration files to compare with the working tree's"`
}

// ImpactOut is the impact tool's answer: restls check --since's since-*
// findings.
type ImpactOut struct {
	Since    string    `json:"since"`
	Scripts  int       `json:"scripts"`
	Findings []Finding `json:"findings"`
}

// Finding is a call a configuration change breaks or changes.
type Finding struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Kind     string `json:"kind,omitempty"`
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

func (s *Server) impact(ctx context.Context, _ *sdk.CallToolRequest, in ImpactIn) (*sdk.CallToolResult, ImpactOut, error) {
	out := ImpactOut{Since: in.Since, Findings: []Finding{}}
	if in.Since == "" || len(in.Since) > 256 || strings.HasPrefix(in.Since, "-") {
		return nil, out, errors.New("give since: a git revision (a branch, a tag, HEAD~1), not an option")
	}
	rep, err := s.o.Impact(ctx, in.Since)
	if err != nil {
		return nil, out, err
	}
	out.Scripts = rep.Scripts
	for _, f := range rep.Findings {
		if !strings.HasPrefix(f.Code, "since-") {
			continue
		}
		file := f.File
		if !filepath.IsAbs(file) {
			if abs, err := filepath.Abs(file); err == nil {
				file = abs
			}
		}
		out.Findings = append(out.Findings, Finding{File: s.rel(file), Line: f.Line, Column: f.Column, Kind: string(f.Kind), Code: f.Code, Severity: f.Severity, Message: f.Message})
		if len(out.Findings) == s.o.Limits.Items {
			break
		}
	}
	return nil, out, nil
}

// Impact is the check of the project's scripts against the configuration
// as git revision ref has it (restls check --since REF): cmd/restls gives
// it, with the project's workspace, include and exclude globs.
type Impact func(ctx context.Context, ref string) (*check.Report, error)
