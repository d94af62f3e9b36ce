package mcp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/hints"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

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
