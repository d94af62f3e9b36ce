package lsp

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// runAnswersWait bounds how long a dry run's answers wait for the
// descriptions (with their answers' schemas) to load.
const runAnswersWait = 10 * time.Second

// checkRunAnswers holds each call of a dry run to its operation in the
// session's descriptions (workspace.CheckCall), as restls run does: the
// notes go on the calls (contract), which the preview shows beside each
// call; they never fail the run. The descriptions load, once, after the
// script ran and only when it made calls.
func (s *session) checkRunAnswers(ctx context.Context, reg *config.Registry, res *dryrun.Result) {
	s.srv.checkAnswers(ctx, s.log, s.openAPISources(), &s.answerCache, reg, res)
}

// CheckRunAnswers is checkRunAnswers for a run that did not come through a
// session, against the server's own descriptions (Options.OpenAPI): the
// designer's POST /v1/run.
func (s *Server) CheckRunAnswers(ctx context.Context, reg *config.Registry, res *dryrun.Result) {
	s.checkAnswers(ctx, s.log, s.opts.OpenAPI, &s.answerSets, reg, res)
}

func (s *Server) checkAnswers(ctx context.Context, log *zap.Logger, src []workspace.APISource, cache *workspace.Attachments, reg *config.Registry, res *dryrun.Result) {
	if res == nil || len(res.Calls) == 0 || reg == nil || len(src) == 0 {
		return
	}
	wctx, cancel := context.WithTimeout(ctx, runAnswersWait)
	defer cancel()
	if err := s.answerAPIs.Wait(wctx, src); err != nil {
		log.Info("dry run: the descriptions did not load in time; answers not checked", zap.Error(err))
		return
	}
	set := cache.Set(s.answerAPIs, src, reg)
	for _, c := range res.Calls {
		c.Contract = append(c.Contract, workspace.CheckCall(set, reg, c)...)
	}
}
