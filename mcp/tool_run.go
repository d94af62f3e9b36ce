package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// Runner runs one dry run: engine.Engine.Run, on stdio as it is, on /mcp
// behind the HTTP server's gate (--allow-run, the caller's role, the
// audit trail).
type Runner = engine.RunFunc

// RunIn is the run tool's input.
type RunIn struct {
	ScriptArg
	Input any `json:"input,omitempty" jsonschema:"context.input: the JSON value the script reads (default {})"`
	// Fixtures and FixturesFile are the recorded answers; neither means
	// the fixtures file beside the script, when there is one.
	Fixtures     string `json:"fixtures,omitempty" jsonschema:"a fixtures document (YAML or JSON, the format of restls://schema/mock.schema.json) answering the calls"`
	FixturesFile string `json:"fixturesFile,omitempty" jsonschema:"a fixtures file, relative to the project root; default: the one beside the script (NAME.mock.yaml), if any"`
	Live         bool   `json:"live,omitempty" jsonschema:"send the calls no fixture answers to the real services; only where restls allows it (restls mcp --allow-live; on /mcp, the role runner)"`
}

// RunOut is the run tool's answer: the preview's result.
type RunOut struct {
	// Mode is how the calls were answered: mock (fixtures) or live.
	Mode string `json:"mode"`
	Kind string `json:"kind"`
	// Fixtures names the fixtures that answered, "" for none.
	Fixtures string `json:"fixtures,omitempty"`
	// Threw: the script ended with Error instead of returning Result.
	Threw  bool `json:"threw"`
	Result any  `json:"result"`
	Error  any  `json:"error,omitempty"`
	// Calls are every api.rest.v1 call in order: request, answer,
	// contract notes (how the answer breaks its operation's
	// description) and errors; Logs the console output.
	Calls any `json:"calls"`
	Logs  any `json:"logs"`
	// Notices are what the run said besides its result.
	Notices []string `json:"notices,omitempty"`
}

// errNoLive is the answer to a live run where restls mcp does not allow
// them.
var errNoLive = errors.New("live runs are off: a dry run here answers calls from fixtures only. Give fixtures (or write the fixtures file the fixtures tool makes), or ask the user to start restls mcp with --allow-live")

func (s *Server) run(ctx context.Context, _ *sdk.CallToolRequest, in RunIn) (*sdk.CallToolResult, RunOut, error) {
	out := RunOut{}
	if in.Live && !s.o.AllowLive {
		return nil, out, errNoLive
	}
	if in.Fixtures != "" && in.FixturesFile != "" {
		return nil, out, errors.New("give fixtures or fixturesFile, not both")
	}
	if len(in.Fixtures) > s.o.Limits.Text {
		return nil, out, fmt.Errorf("fixtures is %d bytes, above the %d limit: give a fixturesFile", len(in.Fixtures), s.o.Limits.Text)
	}
	sc, err := s.script(ctx, in.ScriptArg)
	if err != nil {
		return nil, out, err
	}
	req := engine.Request{Text: sc.text, Kind: sc.kind, Trace: true, Show: s.rel}
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
	switch {
	case in.Fixtures != "":
		req.Fixtures = engine.Fixtures{Inline: []byte(in.Fixtures), Name: "fixtures"}
		out.Fixtures = "fixtures (inline)"
	case in.FixturesFile != "":
		abs, err := input.Inside(s.o.Root, s.abs(in.FixturesFile), input.Fixtures)
		if err != nil {
			if errors.Is(err, input.ErrOutside) {
				return nil, out, s.errOutside(in.FixturesFile)
			}
			return nil, out, fmt.Errorf("fixturesFile %s: %v", in.FixturesFile, unwrapPath(err))
		}
		req.Fixtures = engine.Fixtures{File: abs}
		out.Fixtures = s.rel(abs)
	case in.Path != "":
		// The file beside the script, named here so that the gate and
		// the audit see the run answered from it.
		if beside := workspace.MockFileBeside(sc.abs); beside != "" {
			req.Fixtures = engine.Fixtures{File: beside}
			out.Fixtures = s.rel(beside)
		}
	}
	if in.Live {
		req.Fixtures.Live = true
	} else if req.Fixtures.File == "" && req.Fixtures.Inline == nil {
		req.Fixtures = engine.Fixtures{None: true, Advice: "give the run tool fixtures, or make them with the fixtures tool and write the file it names"}
	}
	var notices []string
	req.Notice = func(msg string) {
		if len(notices) < 20 {
			notices = append(notices, msg)
		}
	}
	res, err := s.o.Run(ctx, sc.snap, req)
	if err != nil {
		var fe *engine.FixturesError
		if errors.As(err, &fe) {
			return nil, out, fmt.Errorf("the fixtures do not load: %w; fix them (restls://schema/mock.schema.json)", err)
		}
		return nil, out, err
	}
	out.Mode, out.Kind, out.Threw, out.Notices = res.Mode, string(res.Kind), res.Threw(), notices
	if out.Mode == "" {
		out.Mode = dryrun.ModeMock
		if in.Live {
			out.Mode = dryrun.ModeLive
		}
	}
	if len(res.Result) > 0 {
		out.Result = res.Result
	}
	if res.Error != nil {
		out.Error = res.Error
	}
	out.Calls, out.Logs = res.Calls, res.Logs
	if res.Calls == nil {
		out.Calls = []any{}
	}
	if res.Logs == nil {
		out.Logs = []any{}
	}
	return nil, out, nil
}
