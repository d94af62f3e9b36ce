package lsp

import (
	"context"
	"errors"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/runtime/curlin"
)

// CommandPasteCurl turns a curl command line into an api.rest.v1 call at
// a position of an open script: it answers the WorkspaceEdit that inserts
// the call (and its notes, as comments), which the client applies.
const CommandPasteCurl = "restls.pasteCurl"

// PasteCurlArgs are the arguments of restls.pasteCurl.
type PasteCurlArgs struct {
	URI      string            `json:"uri"`
	Position protocol.Position `json:"position"`
	Curl     string            `json:"curl"`
}

func (a *PasteCurlArgs) complete() bool { return a.URI != "" && a.Curl != "" }

// PasteCurlResult is the answer of restls.pasteCurl: the edit to apply,
// the serviceId the URL matched, the call's text and the notes on what
// was left out (also in the edit, as comment lines above the call).
type PasteCurlResult struct {
	Edit      protocol.WorkspaceEdit `json:"edit"`
	ServiceID string                 `json:"serviceId"`
	Call      string                 `json:"call"`
	Notes     []string               `json:"notes"`
}

// pasteCurl answers restls.pasteCurl. A command line that cannot be read
// and a URL no service matches are RequestFailed errors whose message
// says why (for the latter, which base url to configure); the client
// shows it.
func (s *session) pasteCurl(_ context.Context, _ commandCall, a *PasteCurlArgs) (*PasteCurlResult, error) {
	u := canonicalURI(a.URI)
	v, ok := s.viewOf(u)
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %s is not open in the editor; open it first", CommandPasteCurl, a.URI)
	}
	if v.reg == nil {
		// No usable registry: no serviceId can be matched.
		return nil, jsonrpc2.Errorf(codeRequestFailed, "%s: %s", CommandPasteCurl, v.snap.For(v.kind).HintState().Message())
	}
	call, err := curlin.FromCurl(a.Curl, v.reg)
	if err != nil {
		var nse *curlin.NoServiceError
		if errors.As(err, &nse) {
			return nil, jsonrpc2.Errorf(codeRequestFailed, "%s: %v", CommandPasteCurl, err)
		}
		return nil, jsonrpc2.Errorf(codeRequestFailed, "%s: cannot read the curl command: %v", CommandPasteCurl, err)
	}
	// The position as the document has it (clamped), and the indentation
	// of its line for the lines after the first.
	m := v.d.m
	off := m.offset(a.Position)
	pos := m.position(off)
	lineStart := m.offset(protocol.Position{Line: pos.Line})
	line := m.Text()[lineStart:off]
	indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
	notes := call.Notes
	if notes == nil {
		notes = []string{}
	}
	return &PasteCurlResult{
		Edit: protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{
			v.d.uri: {{Range: protocol.Range{Start: pos, End: pos}, NewText: call.Snippet(indent)}},
		}},
		ServiceID: call.ServiceID,
		Call:      call.Text(),
		Notes:     notes,
	}, nil
}
