package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// didChangeConfiguration takes the settings from the notification when it
// carries them (push model), else pulls them with workspace/configuration.
func (s *session) didChangeConfiguration(_ context.Context, req *jsonrpc2.Request, p *protocol.DidChangeConfigurationParams) (any, error) {
	raw := []byte(p.Settings)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "{}" {
		s.bg.Go(func() { s.safely("pull settings", func() { s.pullSettings(s.ctx) }) })
		return nil, nil
	}
	set, problems := parseSettings(raw)
	s.setSettings(s.ctx, set, problems)
	return nil, nil
}
