package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/internal/lsptest"
	"github.com/restls/restls/internal/restlstest"
)

// TestMain lets tests run the real command as a child process: with
// RESTLS_TEST_MAIN=1 the test binary is restls.
func TestMain(m *testing.M) {
	if os.Getenv("RESTLS_TEST_MAIN") == "1" {
		code := runMain(&cliEnv{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
		recordPeak()
		os.Exit(code)
	}
	peakDir = makePeakDir()
	restlstest.ParallelBeyondCPUs()
	code := m.Run()
	if peakDir != "" {
		_ = os.RemoveAll(peakDir)
	}
	os.Exit(code)
}

// restlsCommand returns a command running this test binary as restls.
func restlsCommand(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	// The editors' run history goes to the test's directory, never the
	// user cache directory.
	cmd.Env = append(os.Environ(), "RESTLS_TEST_MAIN=1", envHistory+"="+t.TempDir(), envPeakDir+"="+peakDir)
	return cmd
}

// runWithin starts cmd and waits for it at most deadline: a command still
// running then is killed and fails the test (a hang is the finding these
// tests guard against), its output so far shown by output.
func runWithin(t testing.TB, cmd *exec.Cmd, deadline time.Duration, output func() string) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(deadline):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("restls %s still running after %v:\n%s", strings.Join(cmd.Args[1:], " "), deadline, output())
	}
}

// recordingReader copies every byte read into a buffer, unless off.
type recordingReader struct {
	r   io.Reader
	off bool
	mu  sync.Mutex
	buf bytes.Buffer
}

func (r *recordingReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if r.off {
		return n, err
	}
	r.mu.Lock()
	r.buf.Write(p[:n])
	r.mu.Unlock()
	return n, err
}

type procRWC struct {
	io.Reader
	io.WriteCloser
}

// serverProcess is restls serve as a child process with a jsonrpc2 client
// on its stdio.
type serverProcess struct {
	cmd    *exec.Cmd
	conn   jsonrpc2.Conn
	stdout *recordingReader
	stdin  io.WriteCloser
	stderr bytes.Buffer
}

func startServe(t testing.TB, handler jsonrpc2.Handler, args ...string) *serverProcess {
	t.Helper()
	return startServeCommand(t, restlsCommand(t, append([]string{"serve", "--stdio"}, args...)...), handler)
}

// startServeCommand starts cmd, a restls serve --stdio, and connects to it.
func startServeCommand(t testing.TB, cmd *exec.Cmd, handler jsonrpc2.Handler) *serverProcess {
	t.Helper()
	p := &serverProcess{cmd: cmd}
	p.cmd.Stderr = &p.stderr
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.stdin = in
	// Tests check what the server wrote; a benchmark's server writes
	// tens of megabytes, whose copy would make the client's garbage
	// collector compete with the server for the CPUs being measured.
	_, bench := t.(*testing.B)
	p.stdout = &recordingReader{r: out, off: bench}
	p.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(procRWC{p.stdout, in}))
	if handler == nil {
		handler = func(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil }
	}
	p.conn.Go(context.Background(), handler)
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	})
	return p
}

func (p *serverProcess) call(t testing.TB, method string, params, result any) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := p.conn.Call(ctx, method, params, result)
	return err
}

// wait waits for the process to exit and returns its exit code.
func (p *serverProcess) wait(t testing.TB) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("restls serve did not exit; stderr:\n%s", p.stderr.String())
	}
	<-p.conn.Done()
	return p.cmd.ProcessState.ExitCode()
}

// TestServeStdoutIsOnlyProtocol drives the real binary through a whole
// session (completion, hover, a dry run, garbage, unknown methods, debug
// logging) and checks every byte on stdout is a well-formed frame, the logs
// are on stderr, and shutdown+exit gives status 0.
func TestServeStdoutIsOnlyProtocol(t *testing.T) {
	t.Parallel()
	root, _ := filepath.Abs("../../testdata/config")
	p := startServe(t, nil, "--log-level", "debug", "--config-root", root)
	var init protocol.InitializeResult
	if err := p.call(t, protocol.MethodInitialize, &protocol.InitializeParams{}, &init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	_ = p.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{})
	u := uri.File("/ws/a.js")
	text := "console.log('to the trace, not stdout');\nvar r = api.rest.v1.get(\"\", {}, {});\nreturn 1 + 1;\n"
	_ = p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "javascript", Version: 1, Text: "return 1 + 1;\n"},
	})
	var list protocol.CompletionList
	_ = p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: text}},
	})
	if err := p.call(t, protocol.MethodTextDocumentCompletion, &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: 1, Character: 25},
	}}, &list); err != nil {
		t.Fatalf("completion: %v", err)
	}
	var ids []string
	for _, it := range list.Items {
		ids = append(ids, it.Label)
	}
	if !strings.Contains(strings.Join(ids, " "), "crm-orders") {
		t.Errorf("completion in the serviceId = %q, want the example's serviceIds", ids)
	}
	if err := p.call(t, "no/such/method", nil, nil); err == nil {
		t.Error("unknown method answered without error")
	}
	// A dry run through the real runtime (no call leaves the machine).
	var run struct {
		Result json.RawMessage `json:"result"`
		Logs   []any           `json:"logs"`
	}
	arg, _ := json.Marshal(map[string]string{"uri": string(u)})
	// The script calls get("") which fails inside the script; use one that only logs.
	_ = p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 3},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: "console.log('to the trace, not stdout');\nreturn 1 + 1;\n"}},
	})
	if err := p.call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "restls.runScript", Arguments: []protocol.LSPAny{arg}}, &run); err != nil {
		t.Fatalf("runScript: %v", err)
	}
	if string(run.Result) != "2" || len(run.Logs) != 1 {
		t.Errorf("runScript = %s, logs %v; want result 2 and one log entry", run.Result, run.Logs)
	}
	// Hover every serviceId of every kind and ask for the hints maps: no
	// credential of the example may reach stdout or the (debug) log.
	hovers := 0
	for _, kind := range []string{"scriptService", "scriptTask", "validationScript"} {
		ku := uri.File("/ws/" + kind + ".js")
		var m map[string]any
		karg, _ := json.Marshal(map[string]string{"kind": kind})
		if err := p.call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "restls.services", Arguments: []protocol.LSPAny{karg}}, &m); err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		t.Logf("%s: %d services", kind, len(m))
		sb.WriteString("// restls-kind: " + kind + "\n")
		for id := range m {
			sb.WriteString("api.rest.v1.get(\"" + id + "\", {}, {\"Authorization\": \"x\"});\n")
		}
		_ = p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: ku, LanguageID: "javascript", Version: 1, Text: sb.String()},
		})
		for line := 1; line <= len(m); line++ {
			var h json.RawMessage
			if err := p.call(t, protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: ku}, Position: protocol.Position{Line: uint32(line), Character: 18},
			}}, &h); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(h), "https://") {
				hovers++
			}
			var l json.RawMessage
			if err := p.call(t, protocol.MethodTextDocumentCompletion, &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: ku}, Position: protocol.Position{Line: uint32(line), Character: 17},
			}}, &l); err != nil {
				t.Fatal(err)
			}
		}
	}
	if hovers < 20 {
		t.Errorf("only %d serviceId hovers had content", hovers)
	}
	// Garbage on stdin must not end the session.
	if _, err := io.WriteString(p.stdin, "Content-Length: 4\r\n\r\nnope"); err != nil {
		t.Fatal(err)
	}
	if err := p.call(t, protocol.MethodShutdown, nil, nil); err != nil {
		t.Fatalf("shutdown after garbage: %v", err)
	}
	_ = p.conn.Notify(context.Background(), protocol.MethodExit, nil)
	if code := p.wait(t); code != 0 {
		t.Errorf("exit status after shutdown+exit = %d, want 0; stderr:\n%s", code, p.stderr.String())
	}
	p.stdout.mu.Lock()
	out := append([]byte(nil), p.stdout.buf.Bytes()...)
	p.stdout.mu.Unlock()
	if n, err := lsptest.Frames(out); err != nil {
		t.Fatalf("stdout: %v", err)
	} else if n < 5 {
		t.Errorf("only %d frames on stdout", n)
	}
	if bytes.Contains(out, []byte("to the trace, not stdout")) && !bytes.Contains(out, []byte(`"to the trace, not stdout"`)) {
		t.Error("console output leaked to stdout outside a frame")
	}
	for _, secret := range secretsIn(t, root) {
		if bytes.Contains(out, []byte(secret)) || strings.Contains(p.stderr.String(), secret) {
			t.Errorf("a credential of the example configuration (%d bytes) reached stdout or the log", len(secret))
		}
	}
	if !strings.Contains(p.stderr.String(), "session started") || !strings.Contains(p.stderr.String(), "\tdebug\t") {
		t.Errorf("stderr lacks the debug log:\n%s", p.stderr.String())
	}
}

func TestServeExitWithoutShutdownIsStatus1(t *testing.T) {
	t.Parallel()
	p := startServe(t, nil, "--config-root", t.TempDir())
	if err := p.call(t, protocol.MethodInitialize, &protocol.InitializeParams{}, nil); err != nil {
		t.Fatal(err)
	}
	_ = p.conn.Notify(context.Background(), protocol.MethodExit, nil)
	if code := p.wait(t); code != 1 {
		t.Errorf("exit status = %d, want 1", code)
	}
	// Closing stdin without shutdown is the same.
	p2 := startServe(t, nil)
	_ = p2.stdin.Close()
	if code := p2.wait(t); code != 1 {
		t.Errorf("exit status after stdin closed = %d, want 1", code)
	}
}

func TestServeLogFileAndFlags(t *testing.T) {
	t.Parallel()
	logFile := filepath.Join(t.TempDir(), "restls.log")
	var stdout, stderr bytes.Buffer
	env := &cliEnv{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	if rc := runMain(env, []string{"serve", "--log-file", logFile, "--log-level", "debug"}); rc != 1 {
		t.Errorf("serve on an empty stdin = %d, want 1 (no shutdown)", rc)
	}
	if stdout.Len() != 0 || stderr.Len() != 0 {
		t.Errorf("serve with --log-file wrote stdout %q stderr %q", stdout.String(), stderr.String())
	}
	data, err := os.ReadFile(logFile)
	if err != nil || !strings.Contains(string(data), "session started") {
		t.Errorf("log file: %v %q", err, data)
	}
	stdout.Reset()
	if rc := runMain(env, []string{"serve", "-h"}); rc != 0 || !strings.Contains(stdout.String(), "-stdio") || !strings.Contains(stdout.String(), "-config-root") {
		t.Errorf("serve -h = %d:\n%s", rc, stdout.String())
	}
	if rc := runMain(env, []string{"serve", "--log-level", "loud"}); rc != 2 || !strings.Contains(stderr.String(), "log-level") {
		t.Errorf("bad --log-level = %d: %s", rc, stderr.String())
	}
}
