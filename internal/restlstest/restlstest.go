// Package restlstest runs restls as its users do, a process of its own,
// for the test packages outside cmd/restls that drive the binary:
// internal/e2e (sessions, editors, commands through the binary) and
// internal/hygiene (the repository's files that run restls). It builds
// restls once per test process; each package's TestMain calls Main.
package restlstest

import (
	"bufio"
	"bytes"
	"flag"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// EnvBinary names a restls binary to test instead of building one
// (RESTLS_TEST_BINARY=bin/restls go test ./internal/e2e tests a build
// of make build's).
const EnvBinary = "RESTLS_TEST_BINARY"

// EnvHistory is cmd/restls's variable for the editors' run history
// directory: Command points it at the test's directory, never the user
// cache directory.
const EnvHistory = "RESTLS_HISTORY"

var (
	buildOnce sync.Once
	buildDir  string
	binary    string
	buildErr  error
)

// Main runs the tests of m, more at once than there are CPUs
// (ParallelBeyondCPUs), and removes the binary Binary built.
func Main(m *testing.M) {
	ParallelBeyondCPUs()
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// ParallelBeyondCPUs lets more tests run at once than there are CPUs
// (go test's default -parallel): tests that drive restls call
// t.Parallel() unless they say why not, and most spend their time waiting
// on a child restls, a server or a timer, not computing. A -test.parallel
// given on the command line wins. TestMain calls it before m.Run.
func ParallelBeyondCPUs() {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	}
}

// Root is the module's root directory: the nearest parent of the working
// directory (the test's package) that holds go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// Binary is restls built from this checkout, once per test process, or
// the one $RESTLS_TEST_BINARY names.
// `go run -exec cp` rather than `go build -o`: go run keeps the linked
// binary in the build cache, so a second test package, or the next run
// with the same code, copies it instead of linking restls again (about
// 3 s of CPU each time).
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if given := os.Getenv(EnvBinary); given != "" {
			binary, buildErr = filepath.Abs(given)
			return
		}
		root := Root(t)
		if buildDir, buildErr = os.MkdirTemp("", "restls-bin-"); buildErr != nil {
			return
		}
		binary = filepath.Join(buildDir, "restls")
		cmd := exec.Command("go", "run", "-exec", "cp", "./cmd/restls", binary)
		cmd.Dir = root
		var out []byte
		if out, buildErr = cmd.CombinedOutput(); buildErr != nil {
			buildErr = &buildError{err: buildErr, out: string(out)}
		}
	})
	if buildErr != nil {
		t.Fatalf("building restls: %v", buildErr)
	}
	return binary
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// Command is restls with args, its run history in the test's directory.
func Command(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(Binary(t), args...)
	cmd.Env = append(os.Environ(), EnvHistory+"="+t.TempDir())
	return cmd
}

// RunWithin starts cmd and waits for it at most deadline: a command still
// running then is killed and fails the test (a hang is the finding these
// tests guard against), its output so far shown by output.
func RunWithin(t testing.TB, cmd *exec.Cmd, deadline time.Duration, output func() string) {
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

// HTTPProcess is a running `restls serve --http`.
type HTTPProcess struct {
	// Base is the server's URL (http://127.0.0.1:port), Key the
	// access_token of the page address it printed, if any.
	Base, Key string
	// Pid is the server's process id.
	Pid int
	// Stderr is what the server wrote so far.
	Stderr *bytes.Buffer
	// Wait yields the process's end, once.
	Wait chan error
	// Kill sends the server a signal.
	Kill func(syscall.Signal)
}

// listenLine is what serve --http prints once it listens.
var listenLine = regexp.MustCompile(`designer and hints API on (http://[^/\s]+)/(?:\?access_token=(\S+))?`)

// StartHTTP starts cmd, a restls serve --http on 127.0.0.1:0, and waits
// until it says where it listens; the process is killed when the test
// ends.
func StartHTTP(t testing.TB, cmd *exec.Cmd) *HTTPProcess {
	t.Helper()
	pr, pw := io.Pipe()
	var buf bytes.Buffer
	cmd.Stderr = io.MultiWriter(pw, &buf)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	wait := make(chan error, 1)
	p := &HTTPProcess{Pid: cmd.Process.Pid, Stderr: &buf, Wait: wait, Kill: func(s syscall.Signal) { _ = cmd.Process.Signal(s) }}
	go func() { wait <- cmd.Wait(); pw.Close() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := listenLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m
				break
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	select {
	case m := <-found:
		p.Base, p.Key = m[1], m[2]
	case err := <-wait:
		t.Fatalf("restls serve --http exited before listening: %v\n%s", err, buf.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("restls serve --http did not say where it listens:\n%s", buf.String())
	}
	return p
}

// HTTPGet is the status and body of a GET of url.
func HTTPGet(t testing.TB, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}
