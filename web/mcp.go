package web

import (
	"context"
	"net/http"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// /mcp serves the Model Context Protocol's Streamable HTTP transport
// (package mcp) to coding agents, behind what every endpoint has: the
// Host and Origin rules and the request's identity (ServeHTTP), and here
// the access key (key mode: /mcp runs scripts and reads what the
// editor's hints show) or the role viewer (oidc, proxy). Its dry runs
// pass the gate (Gate.WrapEngine): --allow-run, the role they need, the
// audit trail and the metrics, as POST /v1/run's do.

// mayUseMCP refuses /mcp to a request without the key (key mode) or
// without a role.
func (s *Server) mayUseMCP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := IdentityFrom(r.Context())
		switch {
		case (id.Auth == AuthKey || id.Auth == "") && !id.key:
			w.Header().Set("WWW-Authenticate", `Bearer realm="restls"`)
			writeError(w, http.StatusUnauthorized, keyMissing)
			return
		case id.Auth != AuthKey && id.Auth != "" && id.Role < RoleViewer:
			writeError(w, http.StatusForbidden, id.User+" has no role: /mcp needs the role viewer (mocker to run with fixtures, runner to run live); ask the operator of restls serve --http for one")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// EngineRunner is engine.Engine.Run's shape: the MCP run tool's runner,
// the same as every other surface's (Runner).
type EngineRunner = Runner

// WrapEngine is Wrap for the MCP run tool: its runs are audited as
// coming through /mcp (AuditRecord.Via).
func (g *Gate) WrapEngine(run EngineRunner) EngineRunner {
	if run == nil {
		return nil
	}
	gated := g.Wrap(run)
	return func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		return gated(context.WithValue(ctx, viaKey{}, "mcp"), snap, req)
	}
}

// viaKey carries the door of a run the audit names (AuditRecord.Via).
type viaKey struct{}
