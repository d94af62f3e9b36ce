package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/restls/restls/faults"
	"github.com/restls/restls/workspace"
)

// Options configure a Server.
type Options struct {
	// Session is the process's project, the tools read it (the
	// language server's on serve --http). Required.
	Session *workspace.Session
	// Root is the project root: every path an agent names must lead,
	// its links followed, to a file below it. Required.
	Root string
	// ProjectFile is the project file in force (restls.yaml), "" for
	// none: the project resource.
	ProjectFile string
	// Impact checks the project against the configuration of a git
	// revision (restls check --since); nil leaves the impact tool out.
	Impact Impact
	// Run runs the run tool's dry runs (engine.Engine.Run, behind the
	// HTTP server's gate on /mcp); nil leaves the run tool out.
	Run Runner
	// Tests runs the runs of the test and faults tools, which parsed
	// fixtures answer (a test case's, a fault's): on stdio an in-process
	// engine's Run, as restls test and restls faults run; on /mcp the
	// server's child runs behind its gate (the role mocker, the audit
	// trail), as the run tool's. Nil leaves both tools out.
	Tests Runner
	// FaultsFail are the verdicts the faults tool fails a script for when
	// its call names none, as the command read them (the project file's
	// faults.fail); nil is faults.DefaultFail.
	FaultsFail []faults.Verdict
	// AllowLive lets the run tool send calls to the services (restls mcp
	// --allow-live; on /mcp, the gate still asks for the role runner).
	AllowLive bool
	// Version is the server's, reported at initialize.
	Version string
	// Logger receives one Debug line per call; nil discards them.
	Logger *zap.Logger
	// Remote: the clients are on other machines (/mcp): paths outside
	// the root are shown by file name, and messages never name the root's
	// path.
	Remote bool
	// Limits bound the calls; the zero value is DefaultLimits.
	Limits Limits
}

// Server is restls's MCP server. It is safe for concurrent use; one
// serves any number of sessions.
type Server struct {
	o     Options
	srv   *sdk.Server
	log   *zap.Logger
	slots chan struct{}
	red   redactors
}

// New returns the server of o.
func New(o Options) (*Server, error) {
	if o.Session == nil {
		return nil, errors.New("mcp: Options.Session is required")
	}
	if o.Root == "" {
		return nil, errors.New("mcp: Options.Root is required")
	}
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return nil, fmt.Errorf("mcp: project root %s: %w", o.Root, err)
	}
	o.Root = root
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	o.Limits = o.Limits.orDefault()
	s := &Server{o: o, log: o.Logger, slots: make(chan struct{}, o.Limits.Calls)}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "restls", Title: "restls", Version: o.Version}, &sdk.ServerOptions{
		Instructions: instructions,
		// No logging capability: a log line to the client is one more
		// way out for a credential, and nothing needs it.
		Capabilities: &sdk.ServerCapabilities{},
		PageSize:     100,
	})
	s.addTools()
	s.addResources()
	s.addPrompts()
	s.srv.AddReceivingMiddleware(s.guard)
	return s, nil
}

// ServeStdio serves one session on in and out (restls mcp: the agent's
// pipes) until the client closes in or ctx ends.
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	err := s.srv.Run(ctx, &sdk.IOTransport{Reader: in, Writer: out, MaxLineLength: s.o.Limits.Message})
	if err == nil || errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil
	}
	return err
}

// Handler serves MCP's Streamable HTTP transport, stateless: every
// request is answered on its own, with the identity and the context the
// HTTP server gave it, and no session outlives it (a flood of clients
// holds no memory). The HTTP server in front of it decides who may
// call, from where (web's Host, Origin and authentication rules).
func (s *Server) Handler() http.Handler {
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, &sdk.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// web checks Host and Origin for every endpoint (--allow-host,
		// --allow-origin); the SDK's own check would refuse names the
		// operator allowed.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        int64(s.o.Limits.Message),
	})
}

// Limits bound what one call may ask and take.
type Limits struct {
	// Message bounds one JSON-RPC message in bytes (a line on stdio, a
	// body over HTTP).
	Message int
	// Text bounds a script, fixtures or curl text given inline, in bytes.
	Text int
	// Calls is how many calls are answered at once; one past it is
	// refused at once with a message saying to retry.
	Calls int
	// Time bounds one call.
	Time time.Duration
	// Items bounds the entries of a list in an answer (services,
	// operations, completion items, references).
	Items int
}

// DefaultLimits are the limits of the zero Limits.
var DefaultLimits = Limits{Message: 8 << 20, Text: 4 << 20, Calls: 2 * runtime.GOMAXPROCS(0), Time: 60 * time.Second, Items: 500}

func (l Limits) orDefault() Limits {
	d := DefaultLimits
	if l.Message > 0 {
		d.Message = l.Message
	}
	if l.Text > 0 {
		d.Text = l.Text
	}
	if l.Calls > 0 {
		d.Calls = l.Calls
	}
	if l.Time > 0 {
		d.Time = l.Time
	}
	if l.Items > 0 {
		d.Items = l.Items
	}
	return d
}

// errBusy is the answer to a call past Limits.Calls.
var errBusy = errors.New("restls is answering as many calls as it takes at once: call again when one of yours has answered")

// guard is every request's way in and every result's way out: calls
// are admitted up to Limits.Calls and bounded by Limits.Time; results
// and errors leave with every credential of the configuration hidden.
func (s *Server) guard(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch method {
		case "tools/call", "resources/read", "prompts/get":
		default:
			return next(ctx, method, req)
		}
		select {
		case s.slots <- struct{}{}:
			defer func() { <-s.slots }()
		default:
			return nil, errBusy
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(ctx, s.o.Limits.Time)
		defer cancel()
		res, err := next(ctx, method, req)
		red := s.red.of(s.configs())
		if s.o.Remote {
			red.also = s.hideRoot
		}
		if err != nil {
			err = red.err(err)
		} else {
			res, err = red.result(res)
		}
		if ce := s.log.Check(zap.DebugLevel, "mcp call"); ce != nil {
			ce.Write(zap.String("method", method), zap.String("name", red.text(callName(req))), zap.Duration("took", time.Since(start)), zap.Bool("failed", err != nil))
		}
		if err != nil {
			return nil, err
		}
		return res, nil
	}
}

// callName is the tool, resource or prompt a request names, for the log.
func callName(req sdk.Request) string {
	switch p := req.GetParams().(type) {
	case *sdk.CallToolParamsRaw:
		return p.Name
	case *sdk.ReadResourceParams:
		return p.URI
	case *sdk.GetPromptParams:
		return p.Name
	}
	return ""
}
