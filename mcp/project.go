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
// ("" for none).
func FromWorkspace(ws *workspace.Workspace, env string) Project { return wsProject{ws, env} }

type wsProject struct {
	ws  *workspace.Workspace
	env string
}

func (p wsProject) Snapshot(ctx context.Context) (workspace.Snapshot, error) {
	if err := p.ws.WaitDescriptions(ctx, nil); err != nil {
		return workspace.Snapshot{}, fmt.Errorf("loading the API descriptions: %w", err)
	}
	snap := p.ws.Snapshot()
	snap.Environment = p.env
	return snap, nil
}

func (p wsProject) Config() *config.Snapshot { return p.ws.Registry().Get() }

func (p wsProject) AnswerAPIs(ctx context.Context, reg *config.Registry) *openapi.Set {
	if reg == nil {
		return nil
	}
	if err := p.ws.WaitAnswers(ctx); err != nil {
		return nil
	}
	return p.ws.AnswerAPIs(reg)
}
