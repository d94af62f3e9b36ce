package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// ErrNoRunner is what restls.runScript answers when the server was built
// without a script runner.
var ErrNoRunner = errors.New("dry runs are not available in this restls build: it was started without a script runner")

// codeRequestFailed is LSP's RequestFailed: the request was valid but
// could not be served now.
const codeRequestFailed jsonrpc2.Code = -32803

// RunScriptArgs are the arguments of restls.runScript.
type RunScriptArgs struct {
	URI   string          `json:"uri"`
	Kind  string          `json:"kind"`
	Input json.RawMessage `json:"input"`
	// Mock is a fixture file path, "auto" or false; Record a path or
	// "auto" (see fixtureFiles).
	Mock   FixtureArg `json:"mock"`
	Record FixtureArg `json:"record"`
}

func (a *RunScriptArgs) complete() bool { return a.URI != "" }

// ServicesArgs are the optional arguments of restls.services.
type ServicesArgs struct {
	Kind string `json:"kind"`
	URI  string `json:"uri"`
}

var progressSeq atomic.Int64

// runScript runs the open document's current text with the injected runner
// and returns its result (a dryrun.Result: the `restls run --json` object
// and the mode), reporting $/progress while it runs.
func (s *session) runScript(ctx context.Context, c commandCall, a *RunScriptArgs) (*dryrun.Result, error) {
	v, ok := s.viewOf(canonicalURI(a.URI))
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "restls.runScript: %s is not open in the editor; open it first", a.URI)
	}
	// A kind the user named wins; else the engine's kind rule decides.
	var kind config.Kind
	if a.Kind != "" {
		k, err := config.ParseKind(a.Kind)
		if err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "restls.runScript: %v", err)
		}
		kind = k
	}
	runner := s.srv.opts.Runner
	if runner == nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, "restls.runScript: "+ErrNoRunner.Error())
	}
	if !s.opts.MayRun {
		return nil, s.refused(CommandRunScript)
	}
	var input []byte
	if len(a.Input) > 0 && string(a.Input) != "null" {
		input = a.Input
	}
	mockFile, recordFile, err := s.runFiles(v.d, *a)
	if err != nil {
		return nil, err
	}
	// A run waits on real services and asks the client to create a progress
	// token: it must not hold the read goroutine.
	ctx, done := s.detach(ctx, c.req)
	defer done()

	// The run is decided by the engine, once, on the snapshot and the
	// environment taken together (viewOf): the gate judges, the run uses
	// and the audit records that pair, whatever the settings become while
	// the client answers the progress request below.
	show := s.showPath(v)
	run := engine.Request{Path: v.d.path, Name: show(scriptPath(v.d.uri, v.d.path)), Text: v.d.doc.Text(), Kind: kind, Input: input,
		Fixtures: engine.Fixtures{File: mockFile, Record: recordFile}, Trace: true, Show: show, Keep: s.keepIn(v.d),
		Values: true} // the editor shows them inline (inline_values.go)
	if run.Name == "" {
		run.Name = uri.Basename(v.d.uri)
	}
	prog := s.startProgress(ctx, c.token, "restls: running "+uri.Basename(v.d.uri))
	run.Progress = prog.report
	res, err := runner(ctx, v.ws, run)
	if err != nil {
		prog.end("failed")
	} else {
		prog.end("done")
	}
	if err != nil {
		return nil, s.runError(ctx, CommandRunScript, a.URI, err)
	}
	s.keepSlowCalls(v.d, res)
	s.mu.Lock()
	canRefresh := s.caps.valueRefresh
	s.mu.Unlock()
	s.refresh(s.ctx, &s.values, canRefresh)
	return res, nil
}

// runError is how a run that did not run is answered: canceled, busy
// (RequestFailed: try again), fixtures that do not load (InvalidParams,
// naming the file and line), no configuration (RequestFailed), else an
// internal error.
func (s *session) runError(ctx context.Context, command, u string, err error) error {
	var fe *engine.FixturesError
	var ce *engine.ConfigError
	switch {
	case ctx.Err() != nil:
		return protocol.ErrRequestCancelled
	case errors.Is(err, workspace.ErrRunnerBusy), errors.As(err, &ce):
		return jsonrpc2.Errorf(codeRequestFailed, "%s: %v", command, err)
	case errors.As(err, &fe):
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", command, err)
	}
	s.log.Info("run failed", zap.String("command", command), zap.String("uri", u), zap.Error(err))
	return jsonrpc2.Errorf(jsonrpc2.InternalError, "%s: %v", command, err)
}

// showPath is how a run names the script and its fixture files: as the
// session shows paths (ShowPath: a designer's /lsp), else relative to the
// project (the project file's directory, else the workspace's root) when
// under it, as restls run from the project's directory names them.
func (s *session) showPath(v view) func(string) string {
	if s.opts.ShowPath != nil {
		return workspace.NewPathDisplay(s.opts.ShowPath, v.snap.Sources).Path
	}
	s.mu.Lock()
	root := s.root
	s.mu.Unlock()
	if p := s.srv.opts.Project; p != "" {
		root = filepath.Dir(p)
	}
	return func(p string) string {
		if root == "" || p == "" {
			return p
		}
		if rel, err := filepath.Rel(root, p); err == nil && filepath.IsLocal(rel) {
			return filepath.ToSlash(rel)
		}
		return p
	}
}

// runFiles are the fixture files a run of d reads and writes, from the
// mock and record arguments; only a session that may use files may name
// any (the client could otherwise make the server read or write files of
// its choosing).
func (s *session) runFiles(d *document, a RunScriptArgs) (mockFile, recordFile string, err error) {
	if (a.Mock != "" || a.Record != "") && !s.opts.MayUseFiles {
		return "", "", jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s: this session may not name mock or record files, which the server would read and write on its own machine; run without them", CommandRunScript)
	}
	mockFile, recordFile, err = fixtureFiles(scriptPath(d.uri, d.path), a.Mock, a.Record)
	if err != nil {
		return "", "", jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", CommandRunScript, err)
	}
	return mockFile, recordFile, nil
}

// progress is one $/progress token; its methods are no-ops when the client
// does not support work-done progress.
type progress struct {
	s     *session
	ctx   context.Context
	token protocol.ProgressToken
}

// startProgress begins $/progress on the client's token when the request
// carried one, else on a token it asks the client to create.
func (s *session) startProgress(ctx context.Context, token protocol.ProgressToken, title string) *progress {
	p := &progress{s: s, ctx: ctx}
	if token != nil {
		p.token = token
		p.send(map[string]any{"kind": "begin", "title": title, "cancellable": false})
		return p
	}
	s.mu.Lock()
	ok := s.caps.workDoneProgress
	s.mu.Unlock()
	if !ok {
		return p
	}
	tok := protocol.String("restls-run-" + strconv.FormatInt(progressSeq.Add(1), 10))
	if _, err := s.conn.Call(ctx, protocol.MethodWindowWorkDoneProgressCreate, &protocol.WorkDoneProgressCreateParams{Token: tok}, nil); err != nil {
		s.log.Debug("client refused a progress token", zap.Error(err))
		return p
	}
	p.token = tok
	p.send(map[string]any{"kind": "begin", "title": title, "cancellable": false})
	return p
}

func (p *progress) send(value map[string]any) {
	if p.token == nil {
		return
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return
	}
	p.s.notify(context.WithoutCancel(p.ctx), protocol.MethodProgress, &protocol.ProgressParams{Token: p.token, Value: raw})
}

func (p *progress) report(msg string) {
	p.send(map[string]any{"kind": "report", "message": msg})
}

func (p *progress) end(msg string) {
	p.send(map[string]any{"kind": "end", "message": fmt.Sprint(msg)})
}
