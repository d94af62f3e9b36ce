package lsp

import (
	"context"

	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/dryrun"
)

// checkRunAnswers holds each call of a dry run to its operation in the
// session's descriptions (workspace.Session.CheckAnswers, the one answer
// check), as restls run does: the notes go on the calls (contract), which
// the preview shows beside each call; they never fail the run. The
// descriptions load, once, after the script ran and only when it made
// calls.
func (s *session) checkRunAnswers(ctx context.Context, reg *config.Registry, res *dryrun.Result) {
	if res == nil {
		return
	}
	s.srv.ws.CheckAnswers(ctx, s.openAPISources(), &s.answerCache, reg, res.Calls)
}
