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
// loaded. ws must list every description in its Options.APIs.
func FromWorkspace(ws *workspace.Workspace) Project { return wsProject{ws} }

type wsProject struct{ ws *workspace.Workspace }

func (p wsProject) Snapshot(ctx context.Context) (workspace.Snapshot, error) {
	if err := p.ws.WaitDescriptions(ctx, nil); err != nil {
		return workspace.Snapshot{}, fmt.Errorf("loading the API descriptions: %w", err)
	}
	return p.ws.Snapshot(), nil
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
