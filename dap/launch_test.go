package dap

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// pipeClient is a session served over pipes, its runs answered by run.
type pipeClient struct {
	t    testing.TB
	in   *io.PipeWriter
	msgs chan godap.Message
	seq  int
}

func servePipes(t testing.TB, o Options) *pipeClient {
	t.Helper()
	cr, cw := io.Pipe() // client -> server
	sr, sw := io.Pipe() // server -> client
	if o.Snapshot == nil {
		o.Snapshot = func(context.Context, string) (workspace.Snapshot, error) { return workspace.Snapshot{}, nil }
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = Serve(ctx, cr, sw, o)
		_ = sw.Close()
	}()
	c := &pipeClient{t: t, in: cw, msgs: make(chan godap.Message, 64)}
	go func() {
		br := bufio.NewReader(sr)
		for {
			m, err := godap.ReadProtocolMessage(br)
			if err != nil {
				close(c.msgs)
				return
			}
			c.msgs <- m
		}
	}()
	t.Cleanup(func() {
		_ = cw.Close()
		cancel()
		<-done
	})
	return c
}

func (c *pipeClient) request(command string, args any) {
	c.t.Helper()
	c.seq++
	b, _ := json.Marshal(map[string]any{"seq": c.seq, "type": "request", "command": command, "arguments": args})
	if err := godap.WriteBaseMessage(c.in, b); err != nil {
		c.t.Fatal(err)
	}
}

// until reads messages until keep returns true for one, which it returns.
func (c *pipeClient) until(what string, keep func(godap.Message) bool) godap.Message {
	c.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatalf("the session ended before %s", what)
			}
			if keep(m) {
				return m
			}
		case <-timeout:
			c.t.Fatalf("no %s within 10 s", what)
		}
	}
}

func (c *pipeClient) response(command string) godap.ResponseMessage {
	c.t.Helper()
	return c.until(command+" response", func(m godap.Message) bool {
		r, ok := m.(godap.ResponseMessage)
		return ok && r.GetResponse().Command == command
	}).(godap.ResponseMessage)
}

// TestLaunchText: a launch with the script's text reads no file, runs
// that text with no fixtures (not the file beside a path it names), and
// verifies breakpoints against its lines under the name it gave.
func TestLaunchText(t *testing.T) {
	got := make(chan engine.Request, 1)
	c := servePipes(t, Options{Run: func(_ context.Context, _ workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		got <- req
		return &dryrun.Result{Result: json.RawMessage(`7`)}, nil
	}})
	const name = "/designer/scriptService/script.js" // no such file
	c.request("initialize", map[string]any{"adapterID": "restls"})
	c.response("initialize")
	// With the fields VS Code adds to every launch configuration.
	c.request("launch", map[string]any{"program": name, "text": "var a = 1;\n\nreturn a + 6;\n", "kind": "scriptService",
		"type": "restls", "request": "launch", "name": "Debug Script", "__sessionId": "x", "__configurationTarget": 5, "noDebug": false})
	if r := c.response("launch").GetResponse(); !r.Success {
		t.Fatalf("launch refused: %s", r.Message)
	}
	c.request("setBreakpoints", map[string]any{"source": map[string]any{"path": name}, "breakpoints": []map[string]any{{"line": 1}, {"line": 2}, {"line": 3}}})
	bps := c.response("setBreakpoints").(*godap.SetBreakpointsResponse).Body.Breakpoints
	var verified []bool
	for _, b := range bps {
		verified = append(verified, b.Verified)
	}
	if want := []bool{true, false, true}; !slices.Equal(verified, want) {
		t.Errorf("breakpoints verified %v, want %v: %+v", verified, want, bps)
	}
	c.request("configurationDone", nil)
	select {
	case req := <-got:
		if req.Path != "" || req.Name != name || !strings.Contains(req.Text, "return a + 6") || !req.Fixtures.None || req.Fixtures.Beside || req.Fixtures.File != "" {
			t.Errorf("the run was asked %+v (fixtures %+v), want the text, no path, name %s and no fixtures", req, req.Fixtures, name)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the script did not run")
	}
	c.until("the result", func(m godap.Message) bool {
		o, ok := m.(*godap.OutputEvent)
		return ok && o.Body.Output == "result: 7\n"
	})
}

// TestLaunchVetAndRefusals: Vet sees the launch first and its refusal
// is the answer; a launch that mixes what does not go together, or names
// a field restls dap does not know, hears which.
func TestLaunchVetAndRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"vet", map[string]any{"program": "/etc/passwd"}, "no paths here"},
		{"testFile", map[string]any{"testFile": "a.test.yaml", "case": "one", "text": "1"}, `a launch configuration with "testFile" debugs the case's script: leave out "text" and "replay"`},
		{"replay", map[string]any{"replay": "last", "text": "1"}, `replay: this restls dap keeps no run history`},
		{"replay live", map[string]any{"replay": "last", "text": "1", "live": true}, `a replay is answered from what was recorded, never live`},
		{"unknown", map[string]any{"text": "1", "programme": "a.js"}, `json: unknown field "programme"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := servePipes(t, Options{
				Vet: func(a *LaunchArgs) error {
					if a.Text == "" {
						return errors.New("no paths here")
					}
					return nil
				},
				Run: func(context.Context, workspace.Snapshot, engine.Request) (*dryrun.Result, error) {
					t.Error("a refused launch ran")
					return &dryrun.Result{}, nil
				}})
			c.request("launch", tc.args)
			r := c.response("launch").GetResponse()
			if r.Success || !strings.Contains(r.Message, tc.want) {
				t.Errorf("launch answered success=%v %q, want a refusal saying %q", r.Success, r.Message, tc.want)
			}
		})
	}
}
