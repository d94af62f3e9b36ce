package mcp

import (
	"context"
	"fmt"

	"github.com/restls/restls/config"
	"github.com/restls/restls/openapi"
	"github.com/restls/restls/workspace"
)

// FromWorkspace is the Project of ws, as restls check reads it: each
// snapshot after the descriptions the configuration attaches have
// loaded. ws must list every description in its Options.APIs; env
// names the project file's environment its configuration was read from
// ("" for none). current, when not nil, is the configuration in force
// (the language server's, which serve --http reloads and may fetch from
// a registry backend); nil reads ws's registry, reloaded when one of
// its files changed.
func FromWorkspace(ws *workspace.Session, env string, current func() *config.Snapshot) Project {
	return wsProject{ws, env, current}
}

type wsProject struct {
	ws      *workspace.Session
	env     string
	current func() *config.Snapshot
}

func (p wsProject) Snapshot(ctx context.Context) (workspace.Snapshot, error) {
	if err := p.ws.WaitDescriptions(ctx, nil); err != nil {
		return workspace.Snapshot{}, fmt.Errorf("loading the API descriptions: %w", err)
	}
	snap := p.ws.Snapshot()
	snap.Environment = p.env
	snap.Config = p.Config()
	return snap, nil
}

func (p wsProject) Config() *config.Snapshot {
	if p.current != nil {
		return p.current()
	}
	p.ws.Registry().ReloadIfChanged()
	return p.ws.Registry().Get()
}

func (p wsProject) AnswerAPIs(ctx context.Context, reg *config.Registry) *openapi.Set {
	if reg == nil {
		return nil
	}
	if err := p.ws.WaitAnswers(ctx); err != nil {
		return nil
	}
	return p.ws.AnswerAPIs(reg)
}
