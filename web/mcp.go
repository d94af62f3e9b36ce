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

// EngineRunner is engine.Engine.Run's shape: the MCP run tool's runner.
type EngineRunner func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error)

// WrapEngine returns run behind the gate, as Wrap does for a Runner: a
// run it refuses (--allow-run off, a role too weak, a runner's
// environments) never reaches run; a runner's serviceIds limit the
// run's calls; every run is audited and counted by role and mode.
func (g *Gate) WrapEngine(run EngineRunner) EngineRunner {
	if run == nil {
		return nil
	}
	return func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		// The run as the gate and the audit read one: answered from
		// fixtures (a file, a document, or none at all: no-fixture) or
		// live.
		view := workspace.RunRequest{Path: req.Path, URI: req.Name, Text: req.Text, Kind: req.Kind, Input: req.Input,
			MockFile: req.Fixtures.File, MockText: req.Fixtures.Inline, RecordFile: req.Fixtures.Record, Environment: snap.Environment}
		switch {
		case req.Fixtures.Live:
			view.MockFile, view.MockText = "", nil
		case view.MockFile == "" && view.MockText == nil:
			view.MockText = []byte{}
		}
		gated := g.Wrap(func(ctx context.Context, _ workspace.RunRequest) (*dryrun.Result, error) {
			if s := AllowedServices(ctx); s != nil {
				req.AllowServices = s
			}
			return run(ctx, snap, req)
		})
		return gated(context.WithValue(ctx, viaKey{}, "mcp"), view)
	}
}

// viaKey carries the door of a run the audit names (AuditRecord.Via).
type viaKey struct{}
