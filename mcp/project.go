package mcp

import (
	"context"
	"fmt"
	"slices"

	"github.com/restls/restls/config"
	"github.com/restls/restls/openapi"
	"github.com/restls/restls/workspace"
)

// The project is the process's workspace.Session: the snapshot a call
// takes, in the environment it asks for (the session's one rule picks
// it), the descriptions with their answers' schemas, and every
// environment's configuration for the redactor.

// snapshot is the project as one call sees it, in environment env (""
// for the default), the descriptions of the configuration loaded (ctx
// bounds the wait).
func (s *Server) snapshot(ctx context.Context, env string) (workspace.Snapshot, error) {
	sess := s.o.Session
	sess.ReloadIfChanged()
	if err := sess.WaitDescriptions(ctx, nil); err != nil {
		return workspace.Snapshot{}, fmt.Errorf("loading the API descriptions: %w", err)
	}
	return sess.SnapshotIn(env)
}

// answerAPIs are the descriptions of reg's services with their answers'
// schemas (fixtures, examples), loaded within ctx; nil when none.
func (s *Server) answerAPIs(ctx context.Context, reg *config.Registry) *openapi.Set {
	if reg == nil {
		return nil
	}
	if err := s.o.Session.WaitAnswers(ctx); err != nil {
		return nil
	}
	return s.o.Session.AnswerAPIs(reg)
}

// configs are the configurations whose credentials no answer may show:
// the default environment's and every other environment's of the
// project file, each as it is now.
func (s *Server) configs() []*config.Snapshot {
	sess := s.o.Session
	out := []*config.Snapshot{sess.Registry().Get()}
	names, def := sess.Environments()
	for _, name := range names {
		if name == def {
			continue
		}
		if cfg, _, err := sess.EnvironmentSnapshot(name); err == nil && !slices.Contains(out, cfg) {
			out = append(out, cfg)
		}
	}
	return out
}
