package e2e_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// jsonServe is `restls serve --http 127.0.0.1:0 --log-format json ...` as
// a child process, read line by line from stderr.
type jsonServe struct {
	lines chan string
	wait  chan error
	kill  func(syscall.Signal)
}

func startJSONServe(t *testing.T, args ...string) *jsonServe {
	t.Helper()
	cmd := restlsCommand(t, append([]string{"serve", "--http", "127.0.0.1:0", "--log-format", "json", "--config-root", "../../testdata/config"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	p := &jsonServe{lines: make(chan string, 100), wait: make(chan error, 1), kill: func(s syscall.Signal) { _ = cmd.Process.Signal(s) }}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.wait <- cmd.Wait()
	}()
	return p
}

// entry decodes one stderr line, failing the test unless it is a JSON
// object.
func entry(t *testing.T, line string) map[string]any {
	t.Helper()
	var e map[string]any
	if err := json.Unmarshal([]byte(line), &e); err != nil {
		t.Errorf("--log-format json wrote a line that is not JSON (%v): %q", err, line)
	}
	return e
}

// until reads entries until one has message msg, and returns it.
func (p *jsonServe) until(t *testing.T, msg string, seen *[]string) map[string]any {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatalf("restls serve ended before logging %q:\n%s", msg, strings.Join(*seen, "\n"))
			}
			*seen = append(*seen, line)
			if e := entry(t, line); e["msg"] != nil && strings.HasPrefix(e["msg"].(string), msg) {
				return e
			}
		case <-deadline:
			t.Fatalf("restls serve did not log %q in 20s:\n%s", msg, strings.Join(*seen, "\n"))
		}
	}
}

// stop ends the server with SIGTERM and returns every remaining line.
func (p *jsonServe) stop(t *testing.T, seen *[]string) {
	t.Helper()
	p.kill(syscall.SIGTERM)
	for line := range p.lines {
		*seen = append(*seen, line)
		entry(t, line)
	}
	if err := <-p.wait; err != nil {
		t.Errorf("restls serve: %v", err)
	}
}

// TestServeHTTPJSONLogsOnly: with --log-format json every line on stderr
// is a JSON log entry, from start to stop, and the page's access key is in
// none of them; the log says how to get it.
func TestServeHTTPJSONLogsOnly(t *testing.T) {
	t.Parallel()
	p := startJSONServe(t, "--allow-run")
	var seen []string
	e := p.until(t, "designer and hints API", &seen)
	url, _ := e["url"].(string)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || e["level"] != "warn" || !strings.Contains(e["msg"].(string), "--page-url-file") {
		t.Errorf("the designer entry = %v, want a warning with the plain url that names --page-url-file", e)
	}
	// The key exists (runs need it) but no line carries it.
	res, err := http.Post(url+"v1/run", "application/json", strings.NewReader(`{"text":"return 1"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode == 200 {
		t.Errorf("POST /v1/run without the key = 200: the test expects a server that made a key")
	}
	p.stop(t, &seen)
	for _, line := range seen {
		if strings.Contains(line, "access_token") {
			t.Errorf("a log line carries the page address with its key: %s", line)
		}
	}
}

// TestServeHTTPPageURLFile: --page-url-file receives the page address
// with the key (mode 0600, removed at stop), the key works, and neither
// the JSON log nor the console line carries it.
func TestServeHTTPPageURLFile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "page-url")
	// An existing file readable by others is made private.
	if err := os.WriteFile(file, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startJSONServe(t, "--allow-run", "--page-url-file", file)
	var seen []string
	e := p.until(t, "designer and hints API", &seen)
	if e["pageURLFile"] != file || e["level"] != "info" {
		t.Errorf("the designer entry = %v, want level info naming %s", e, file)
	}
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", file, info.Mode().Perm())
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	page := strings.TrimSpace(string(b))
	base, key, ok := strings.Cut(page, "/?access_token=")
	if !ok || len(key) < 20 || base+"/" != e["url"] {
		t.Fatalf("%s holds %q, want %s?access_token=<key>", file, b, e["url"])
	}
	res, err := http.Post(base+"/v1/run?access_token="+key, "application/json", strings.NewReader(`{"text":"return 1"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("POST /v1/run with the key from the file = %d %s", res.StatusCode, body)
	}
	p.stop(t, &seen)
	for _, line := range seen {
		if strings.Contains(line, key) {
			t.Errorf("a log line carries the key: %s", line)
		}
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("%s is still there after serve stopped (%v)", file, err)
	}

	// Console format: the line on stderr names the file, not the key.
	c := startHTTP(t, nil, "--config-root", "../../testdata/config", "--page-url-file", file)
	if c.key != "" {
		t.Errorf("with --page-url-file the stderr line carries the key %q", c.key)
	}
	b, err = os.ReadFile(file)
	if err != nil || !strings.Contains(string(b), "access_token=") {
		t.Errorf("%s: %q %v", file, b, err)
	}
	c.kill(syscall.SIGTERM)
	<-c.wait
	if strings.Contains(c.stderr.String(), "access_token") || !strings.Contains(c.stderr.String(), "is in "+file) {
		t.Errorf("console stderr with --page-url-file:\n%s", c.stderr.String())
	}
}

// TestServeHTTPJSONErrors: an error that ends serve is a JSON entry too.
func TestServeHTTPJSONErrors(t *testing.T) {
	t.Parallel()
	ln := mustListen(t)
	cmd := restlsCommand(t, "serve", "--http", ln, "--log-format", "json", "--config-root", "../../testdata/config")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("serve on a taken address succeeded:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		entry(t, line)
	}
	if !strings.Contains(string(out), "cannot listen on "+ln) {
		t.Errorf("no entry says it cannot listen:\n%s", out)
	}
}

// mustListen holds a loopback port for the test and returns its address.
func mustListen(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}
