// Command lbload is issue 29's load test: three `restls serve --http`
// replicas behind HAProxy (Debian's package) on loopback, N designer
// sessions typing (a completion every -interval each) and dry runs at
// -runs a minute through the load balancer, and one replica stopped with
// SIGTERM in the middle. It reports sessions lost (a session that could
// not reconnect and get answers again within -reconnect), reconnections
// and the close codes that caused them, runs answered, failed with a
// clear error or silently lost, and completion latency before, during
// (the -reconnect window after the stop) and after.
//
//	go build -o bin/restls ./cmd/restls
//	go run ./web/testdata/lbload -bin bin/restls -sessions 1000 -duration 60s
//
// It lives under testdata so `go build ./...` and `go vet ./...` skip it.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"
)

const token = "lbload-token"

func main() {
	bin := flag.String("bin", "bin/restls", "restls binary")
	haproxy := flag.String("haproxy", "haproxy", "haproxy binary")
	root := flag.String("config-root", "testdata/config", "configuration root of the replicas")
	sessions := flag.Int("sessions", 1000, "designer sessions")
	interval := flag.Duration("interval", 2*time.Second, "pause between a session's completions")
	runs := flag.Int("runs", 50, "dry runs a minute (with fixtures: no network)")
	duration := flag.Duration("duration", 60*time.Second, "how long the load lasts; a replica stops in the middle")
	reconnect := flag.Duration("reconnect", 10*time.Second, "a session not answering again this long after its socket closed is lost")
	grace := flag.Duration("grace", 10*time.Second, "the replicas' --shutdown-grace")
	flag.Parse()
	if err := run(*bin, *haproxy, *root, *sessions, *interval, *runs, *duration, *reconnect, *grace); err != nil {
		fmt.Fprintln(os.Stderr, "lbload:", err)
		os.Exit(1)
	}
}

type replica struct {
	cmd       *exec.Cmd
	http, ops string // host:port
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// startReplica starts serve --http and reads its addresses from its JSON
// log.
func startReplica(bin, root string, lbPort int, grace time.Duration) (*replica, error) {
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--config-root", root,
		"--token", token, "--allow-run", "--max-runs", "4", "--log-format", "json", "--log-level", "info",
		"--shutdown-grace", grace.String(), "--shutdown-delay", "2s", "--allow-host", fmt.Sprintf("127.0.0.1:%d", lbPort))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := &replica{cmd: cmd}
	found := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		done := false
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			switch m["msg"] {
			case "serving /metrics, /healthz and /readyz":
				r.ops, _ = m["addr"].(string)
			case "designer and hints API":
				u, _ := m["url"].(string)
				r.http = strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/")
			}
			if !done && r.ops != "" && r.http != "" {
				done = true
				close(found)
			}
		}
	}()
	select {
	case <-found:
		return r, nil
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		return nil, errors.New("a replica did not start")
	}
}

func run(bin, haproxy, root string, nSessions int, interval time.Duration, runsPerMin int, duration, reconnectWithin, grace time.Duration) error {
	lbPort, err := freePort()
	if err != nil {
		return err
	}
	var reps []*replica
	defer func() {
		for _, r := range reps {
			_ = r.cmd.Process.Kill()
			_ = r.cmd.Wait()
		}
	}()
	for range 3 {
		r, err := startReplica(bin, root, lbPort, grace)
		if err != nil {
			return err
		}
		reps = append(reps, r)
	}
	dir, err := os.MkdirTemp("", "restls-lbload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var cfg strings.Builder
	fmt.Fprintf(&cfg, `global
  maxconn 8000
defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout tunnel 1h
frontend designer
  bind 127.0.0.1:%d
  default_backend restls
backend restls
  balance leastconn
  retries 3
  option redispatch
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 1s fall 1 rise 2
`, lbPort)
	for i, r := range reps {
		_, opsPort, _ := net.SplitHostPort(r.ops)
		fmt.Fprintf(&cfg, "  server r%d %s check port %s\n", i+1, r.http, opsPort)
	}
	cfgFile := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfgFile, []byte(cfg.String()), 0o600); err != nil {
		return err
	}
	lb := exec.Command(haproxy, "-f", cfgFile, "-db")
	lb.Stderr = os.Stderr
	if err := lb.Start(); err != nil {
		return fmt.Errorf("start haproxy: %w", err)
	}
	defer func() { _ = lb.Process.Kill(); _ = lb.Wait() }()
	base := fmt.Sprintf("127.0.0.1:%d", lbPort)
	for deadline := time.Now().Add(20 * time.Second); ; {
		req, _ := http.NewRequest(http.MethodGet, "http://"+base+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			return errors.New("haproxy did not answer")
		}
		time.Sleep(100 * time.Millisecond)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &stats{closes: map[string]int{}}
	var wg sync.WaitGroup
	start := time.Now()
	stopAt := start.Add(duration / 2)
	for i := range nSessions {
		wg.Go(func() {
			time.Sleep(time.Duration(i) * interval / time.Duration(nSessions)) // typists start spread out
			session(ctx, "ws://"+base+"/lsp", i, interval, reconnectWithin, st)
		})
	}
	wg.Go(func() { dryRuns(ctx, "http://"+base, runsPerMin, st) })
	time.Sleep(time.Until(stopAt))
	st.stopped.Store(time.Now().UnixNano())
	_ = reps[1].cmd.Process.Signal(syscall.SIGTERM)
	time.Sleep(time.Until(start.Add(duration)))
	cancel()
	wg.Wait()
	_ = reps[1].cmd.Wait()
	st.report(nSessions, time.Unix(0, st.stopped.Load()), reconnectWithin)
	return nil
}

type sample struct {
	at  time.Time
	lat time.Duration
}

type stats struct {
	mu                sync.Mutex
	lat               []sample
	closes            map[string]int
	reconnects, lost  int
	runsOK, runsClear int
	runsSilent        int
	runErrors         []string
	stopped           atomic.Int64
	maxReconnect      time.Duration
}

// session types into one document until ctx ends, reconnecting (and
// opening its document again) whenever its socket closes, as the
// designer module does.
func session(ctx context.Context, url string, i int, interval, within time.Duration, st *stats) {
	uri := fmt.Sprintf("file:///designer/scriptService/s%d.js", i)
	text := "var r = api.rest.v1.get(\"\", {}, {});\n"
	col := len(`var r = api.rest.v1.get("`)
	var closedAt time.Time
	for ctx.Err() == nil {
		c, err := dialLSP(ctx, url, uri, text)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if closedAt.IsZero() {
				closedAt = time.Now()
			}
			if time.Since(closedAt) > within {
				st.mu.Lock()
				st.lost++
				st.mu.Unlock()
				return
			}
			time.Sleep(200 * time.Millisecond)
			continue
		}
		if !closedAt.IsZero() {
			took := time.Since(closedAt)
			st.mu.Lock()
			st.reconnects++
			st.maxReconnect = max(st.maxReconnect, took)
			st.mu.Unlock()
			closedAt = time.Time{}
		}
		for ctx.Err() == nil {
			t0 := time.Now()
			if err := c.call(ctx, "textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": uri},
				"position": map[string]any{"line": 0, "character": col}}); err != nil {
				if ctx.Err() != nil {
					break
				}
				st.mu.Lock()
				st.closes[c.closeReason()]++
				st.mu.Unlock()
				closedAt = time.Now()
				break
			}
			st.mu.Lock()
			st.lat = append(st.lat, sample{t0, time.Since(t0)})
			st.mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(interval):
			case <-c.done:
			}
		}
		c.ws.CloseNow()
	}
}

// dryRuns posts runs with fixtures through the load balancer: each ends
// answered (200), with a clear error (an answer with a JSON error), or
// silently lost (no answer).
func dryRuns(ctx context.Context, base string, perMin int, st *stats) {
	tick := time.NewTicker(time.Minute / time.Duration(perMin))
	defer tick.Stop()
	body, _ := json.Marshal(map[string]any{"text": `return api.rest.v1.get("crm-customers", {}, {}).body`,
		"mock": "- serviceId: crm-customers\n  method: GET\n  status: 200\n  body: {ok: true}\n"})
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodPost, base+"/v1/run", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			st.mu.Lock()
			defer st.mu.Unlock()
			if err != nil {
				st.runsSilent++
				st.runErrors = append(st.runErrors, err.Error())
				return
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			var e struct{ Error string }
			switch {
			case res.StatusCode == 200:
				st.runsOK++
			case json.Unmarshal(b, &e) == nil && e.Error != "":
				st.runsClear++
				st.runErrors = append(st.runErrors, fmt.Sprintf("%d %s", res.StatusCode, e.Error))
			default:
				st.runsSilent++
				st.runErrors = append(st.runErrors, fmt.Sprintf("%d %.80q", res.StatusCode, b))
			}
		})
	}
}

func (st *stats) report(nSessions int, stopped time.Time, within time.Duration) {
	st.mu.Lock()
	defer st.mu.Unlock()
	phase := func(from, to time.Time) (n int, p50, p99 time.Duration) {
		var l []time.Duration
		for _, s := range st.lat {
			if !s.at.Before(from) && s.at.Before(to) {
				l = append(l, s.lat)
			}
		}
		if len(l) == 0 {
			return 0, 0, 0
		}
		slices.Sort(l)
		return len(l), l[len(l)/2], l[min(len(l)-1, len(l)*99/100)]
	}
	fmt.Printf("sessions %d: lost %d, reconnections %d (slowest %v), closes by reason %v\n",
		nSessions, st.lost, st.reconnects, st.maxReconnect.Round(time.Millisecond), st.closes)
	fmt.Printf("dry runs: answered %d, failed with a clear error %d, silently lost %d\n", st.runsOK, st.runsClear, st.runsSilent)
	for _, e := range st.runErrors {
		fmt.Printf("  run error: %s\n", e)
	}
	far, end := time.Unix(0, 0), time.Now().Add(time.Hour)
	for _, p := range []struct {
		name     string
		from, to time.Time
	}{{"before the stop", far, stopped}, {"during (stop + " + within.String() + ")", stopped, stopped.Add(within)}, {"after", stopped.Add(within), end}} {
		n, p50, p99 := phase(p.from, p.to)
		fmt.Printf("completion %s: %d answers, p50 %v, p99 %v\n", p.name, n, p50.Round(10*time.Microsecond), p99.Round(10*time.Microsecond))
	}
}

// lspConn is a minimal JSON-RPC client over /lsp: calls wait for their
// answer; the server's own requests are answered with null.
type lspConn struct {
	ws      *websocket.Conn
	mu      sync.Mutex
	next    int
	pending map[int]chan json.RawMessage
	done    chan struct{}
	err     error
}

func dialLSP(ctx context.Context, url, uri, text string) (*lspConn, error) {
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(dctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(64 << 20)
	c := &lspConn{ws: ws, pending: map[int]chan json.RawMessage{}, done: make(chan struct{})}
	go c.readLoop()
	if err := c.call(dctx, "initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}); err != nil {
		ws.CloseNow()
		return nil, err
	}
	_ = c.notify(dctx, "initialized", map[string]any{})
	_ = c.notify(dctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "javascript", "version": 1, "text": text}})
	return c, nil
}

func (c *lspConn) readLoop() {
	defer close(c.done)
	for {
		_, b, err := c.ws.Read(context.Background())
		if err != nil {
			c.mu.Lock()
			c.err = err
			c.mu.Unlock()
			return
		}
		var m struct {
			ID     *json.RawMessage `json:"id"`
			Method string           `json:"method"`
			Result json.RawMessage  `json:"result"`
			Error  json.RawMessage  `json:"error"`
		}
		if json.Unmarshal(b, &m) != nil || m.ID == nil {
			continue
		}
		if m.Method != "" { // a request of the server's
			_ = c.ws.Write(context.Background(), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":`+string(*m.ID)+`,"result":null}`))
			continue
		}
		var id int
		if json.Unmarshal(*m.ID, &id) != nil {
			continue
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- m.Error
		}
	}
}

func (c *lspConn) call(ctx context.Context, method string, params any) error {
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan json.RawMessage, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err := c.ws.Write(ctx, websocket.MessageText, b); err != nil {
		return err
	}
	select {
	case e := <-ch:
		if len(e) > 0 && string(e) != "null" {
			return fmt.Errorf("%s: %s", method, e)
		}
		return nil
	case <-c.done:
		return errors.New("closed")
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(10 * time.Second):
		return errors.New("no answer in 10s")
	}
}

func (c *lspConn) notify(ctx context.Context, method string, params any) error {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	return c.ws.Write(ctx, websocket.MessageText, b)
}

// closeReason names why the socket ended: its close code, or the error.
func (c *lspConn) closeReason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if code := websocket.CloseStatus(c.err); code != -1 {
		return fmt.Sprint(int(code))
	}
	if c.err == nil {
		return "no answer"
	}
	return "dropped"
}
