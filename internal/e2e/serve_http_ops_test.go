package e2e_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// opsProcess is serve --http with its stderr as lines.
type opsProcess struct {
	lines chan string
	kill  func(syscall.Signal)
	all   []string
}

func startServeLines(t *testing.T, args ...string) *opsProcess {
	t.Helper()
	cmd := restlsCommand(t, append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	p := &opsProcess{lines: make(chan string, 1024), kill: func(s syscall.Signal) { _ = cmd.Process.Signal(s) }}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	return p
}

// waitLine returns the first line (from now on) that ok accepts.
func (p *opsProcess) waitLine(t *testing.T, what string, ok func(string) bool) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case l, open := <-p.lines:
			if !open {
				t.Fatalf("restls ended before %s:\n%s", what, strings.Join(p.all, "\n"))
			}
			p.all = append(p.all, l)
			if ok(l) {
				return l
			}
		case <-deadline:
			t.Fatalf("no %s in:\n%s", what, strings.Join(p.all, "\n"))
		}
	}
}

// jsonLog decodes a --log-format json line, or nil.
func jsonLog(l string) map[string]any {
	var m map[string]any
	if json.Unmarshal([]byte(l), &m) != nil {
		return nil
	}
	return m
}

// TestServeHTTPOps: --log-format json writes one zap production JSON
// object per log line; --metrics-addr serves /metrics, /healthz and
// /readyz without the token; SIGHUP reloads the configuration (no
// session is open, so nothing else would notice the file changed).
func TestServeHTTPOps(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	yml := func(ids ...string) {
		var b strings.Builder
		b.WriteString("scriptservice:\n  api:\n")
		for _, id := range ids {
			b.WriteString("    - serviceId: " + id + "\n      url: https://" + id + ".example.com\n")
		}
		if err := os.WriteFile(filepath.Join(root, "application.yml"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	yml("one")
	p := startServeLines(t, "--config-root", root, "--token", "ops-test-token", "--log-format", "json", "--metrics-addr", "127.0.0.1:0")

	// Every line on stderr is JSON with zap's production keys, the page
	// address included (an entry of its own, without any key).
	opsLine := p.waitLine(t, "the operators' port", func(l string) bool {
		m := jsonLog(l)
		return m != nil && m["msg"] == "serving /metrics, /healthz and /readyz"
	})
	ops := "http://" + jsonLog(opsLine)["addr"].(string)
	isPage := func(l string) bool {
		m := jsonLog(l)
		return m != nil && m["msg"] == "designer and hints API"
	}
	pageLine := ""
	for _, l := range p.all {
		if isPage(l) {
			pageLine = l
		}
	}
	if pageLine == "" {
		pageLine = p.waitLine(t, "the page address", isPage)
	}
	base := strings.TrimSuffix(jsonLog(pageLine)["url"].(string), "/")
	for _, l := range p.all {
		m := jsonLog(l)
		if m == nil {
			t.Errorf("not a JSON log line: %s", l)
			continue
		}
		for _, k := range []string{"level", "ts", "logger", "msg"} {
			if _, ok := m[k]; !ok {
				t.Errorf("log line without %q: %s", k, l)
			}
		}
	}

	// The operators' port needs no token; the main one does.
	waitReady := func() {
		deadline := time.Now().Add(20 * time.Second)
		for {
			code, _ := httpGet(t, ops+"/readyz")
			if code == 200 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("/readyz = %d", code)
			}
			time.Sleep(10 * time.Millisecond) // polling another process: no event to wait on
		}
	}
	waitReady()
	if code, _ := httpGet(t, ops+"/healthz"); code != 200 {
		t.Errorf("ops /healthz = %d", code)
	}
	code, body := httpGet(t, ops+"/metrics")
	if code != 200 || !strings.Contains(body, "restls_build_info{") || !strings.Contains(body, `restls_registry_services{kind="scriptService"} 1`) {
		t.Fatalf("ops /metrics = %d %.400s", code, body)
	}
	if strings.Contains(body, "example.com") || strings.Contains(body, "ops-test-token") {
		t.Errorf("/metrics shows an address or the token")
	}
	if code, _ := httpGet(t, ops+"/v1/services"); code != 404 {
		t.Errorf("the operators' port serves /v1/services: %d", code)
	}
	if code, _ := httpGet(t, base+"/metrics"); code != 401 {
		t.Errorf("main /metrics without the token = %d, want 401 (no --metrics: 404 behind the token)", code)
	}

	// SIGHUP reloads.
	yml("one", "two")
	p.kill(syscall.SIGHUP)
	p.waitLine(t, "the SIGHUP reload", func(l string) bool {
		m := jsonLog(l)
		return m != nil && m["msg"] == "configuration reloaded (SIGHUP)"
	})
	_, body = httpGet(t, ops+"/metrics")
	if !strings.Contains(body, `restls_registry_services{kind="scriptService"} 2`) {
		t.Errorf("after SIGHUP the registry still has one service:\n%s", grepLines(body, "restls_registry"))
	}
	if !strings.Contains(body, "restls_registry_loads_total 2") {
		t.Errorf("loads after SIGHUP:\n%s", grepLines(body, "restls_registry_loads"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestServeLogFormatRefused(t *testing.T) {
	t.Parallel()
	cmd := restlsCommand(t, "serve", "--log-format", "xml")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), `--log-format: unknown format "xml" (use console or json)`) {
		t.Errorf("--log-format xml: %v %s", err, out)
	}
}
