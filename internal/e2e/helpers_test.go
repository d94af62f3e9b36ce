package e2e_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	// Linking golden defines -update in this test binary, so that
	// `go test ./... -update` works across the module.
	_ "github.com/restls/restls/internal/goldentest"
	"github.com/restls/restls/internal/restlstest"
)

// The helpers below are cmd/restls's (serve_test.go, serve_http_test.go,
// record_test.go, run_test.go) with restls the binary restlstest built:
// a test moves here from cmd/restls with its package line changed only.

// TestMain runs the tests, more at once than there are CPUs, and removes
// the restls binary restlstest built.
func TestMain(m *testing.M) { restlstest.Main(m) }

// restlsCommand is restls with args, its run history in the test's
// directory.
func restlsCommand(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	return restlstest.Command(t, args...)
}

// repoRoot is the module's root directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	return restlstest.Root(t)
}

// runWithin starts cmd and waits for it at most deadline: a command still
// running then is killed and fails the test.
func runWithin(t testing.TB, cmd *exec.Cmd, deadline time.Duration, output func() string) {
	t.Helper()
	restlstest.RunWithin(t, cmd, deadline, output)
}

// startHTTPCmd starts cmd, a restls serve --http on 127.0.0.1:0, and
// waits until it says where it listens.
func startHTTPCmd(t *testing.T, cmd *exec.Cmd) *httpProcess {
	t.Helper()
	p := restlstest.StartHTTP(t, cmd)
	return &httpProcess{base: p.Base, key: p.Key, pid: p.Pid, wait: p.Wait, stderr: p.Stderr, kill: p.Kill}
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

// httpProcess is `restls serve --http 127.0.0.1:0 ...` as a child process.
type httpProcess struct {
	base   string // http://127.0.0.1:port
	pid    int
	key    string // the access_token of the page address it printed, if any
	wait   chan error
	stderr *bytes.Buffer
	kill   func(syscall.Signal)
}

func startHTTP(t *testing.T, stdin io.Reader, args ...string) *httpProcess {
	t.Helper()
	cmd := restlsCommand(t, append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Stdin = stdin
	return startHTTPCmd(t, cmd)
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// runBinary runs the real restls command.
func runBinary(t *testing.T, args ...string) (stdout, stderr string, rc int) {
	t.Helper()
	cmd := restlsCommand(t, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
