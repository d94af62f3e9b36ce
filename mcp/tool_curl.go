package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/runtime/curlin"
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
