// Command load measures the designer backend under many WebSocket sessions:
// it starts `restls serve --http` on loopback, opens N sessions at once
// (initialize, initialized, didOpen), then has every session ask for
// completions concurrently and reports the latency distribution and the
// server's resident memory.
//
//	go build -o bin/restls ./cmd/restls
//	go run ./web/testdata/load -bin bin/restls -sessions 200 -requests 50
//
// It lives under testdata so `go build ./...` and `go vet ./...` skip it.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

func main() {
	bin := flag.String("bin", "bin/restls", "restls binary")
	root := flag.String("config-root", "testdata/config", "config root (ignored with -services)")
	services := flag.Int("services", 0, "generate a configuration with this many services instead of -config-root")
	sessions := flag.Int("sessions", 200, "concurrent WebSocket sessions")
	requests := flag.Int("requests", 50, "completion requests per session")
	interval := flag.Duration("interval", 0, "pause between a session's requests (0: back to back, the worst case; 100ms is a fast typist)")
	flag.Parse()
	if err := run(*bin, *root, *services, *sessions, *requests, *interval); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func run(bin, root string, nServices, nSessions, nRequests int, interval time.Duration) error {
	if nServices > 0 {
		dir, err := os.MkdirTemp("", "restls-load-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		var b strings.Builder
		b.WriteString("scriptservice:\n  api:\n")
		for i := range nServices {
			fmt.Fprintf(&b, "    - serviceId: svc-%05d\n      url: https://svc-%05d.example.com/api\n      description: Service number %d\n", i, i, i)
		}
		if err := os.WriteFile(filepath.Join(dir, "application.yml"), []byte(b.String()), 0o644); err != nil {
			return err
		}
		root = dir
	}
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0", "--config-root", root, "--log-level", "warn")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`on http://(\S+?)/`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	var host string
	select {
	case host = <-addr:
	case <-time.After(20 * time.Second):
		return fmt.Errorf("restls did not start")
	}
	pid := cmd.Process.Pid
	rssIdle := rss(pid)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	text := "var r = api.rest.v1.get(\"\", {}, {});\n"
	// The cursor inside the serviceId string: every request lists every
	// service.
	line, col := 0, len(`var r = api.rest.v1.get("`)

	clients := make([]*client, nSessions)
	var wg sync.WaitGroup
	var openErr atomic.Value
	start := time.Now()
	for i := range nSessions {
		wg.Go(func() {
			c, err := dial(ctx, "ws://"+host+"/lsp")
			if err == nil {
				err = c.open(ctx, fmt.Sprintf("file:///load/%d.js", i), text)
			}
			if err != nil {
				openErr.Store(err)
				return
			}
			clients[i] = c
		})
	}
	wg.Wait()
	if err, _ := openErr.Load().(error); err != nil {
		return fmt.Errorf("opening sessions: %w", err)
	}
	opened := time.Since(start)
	rssOpen := rss(pid)

	lat := make([][]time.Duration, nSessions)
	var items atomic.Int64
	cpu0 := cpuTime(pid)
	start = time.Now()
	for i, c := range clients {
		wg.Go(func() {
			// Sessions start spread over one interval, as typists would.
			if interval > 0 {
				time.Sleep(time.Duration(i) * interval / time.Duration(nSessions))
			}
			for r := range nRequests {
				if r > 0 && interval > 0 {
					time.Sleep(interval)
				}
				t0 := time.Now()
				n, err := c.complete(ctx, fmt.Sprintf("file:///load/%d.js", i), line, col)
				if err != nil {
					openErr.Store(fmt.Errorf("session %d request %d: %w", i, r, err))
					return
				}
				lat[i] = append(lat[i], time.Since(t0))
				items.Add(int64(n))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := cpuTime(pid) - cpu0
	if err, _ := openErr.Load().(error); err != nil {
		return err
	}
	rssLoad, hwm := rss(pid), hwmOf(pid)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	slices.Sort(all)
	q := func(p float64) time.Duration { return all[min(len(all)-1, int(p*float64(len(all))))] }
	nsvc := nServices
	if nsvc == 0 {
		nsvc = -1
	}
	fmt.Printf("sessions %d, completions %d (%d per session, all sessions at once, %v apart), items per answer %d\n",
		nSessions, len(all), nRequests, interval, items.Load()/int64(len(all)))
	fmt.Printf("opening all sessions: %v\n", opened.Round(time.Millisecond))
	fmt.Printf("completion latency: p50 %v  p90 %v  p99 %v  max %v  (throughput %.0f/s)\n",
		q(0.50).Round(10*time.Microsecond), q(0.90).Round(10*time.Microsecond), q(0.99).Round(10*time.Microsecond),
		all[len(all)-1].Round(10*time.Microsecond), float64(len(all))/elapsed.Seconds())
	fmt.Printf("server CPU: %v for the load, %v per completion\n", cpu.Round(time.Millisecond), (cpu / time.Duration(len(all))).Round(time.Microsecond))
	fmt.Printf("server RSS: idle %s, %d sessions open %s, after the load %s, peak %s\n",
		mb(rssIdle), nSessions, mb(rssOpen), mb(rssLoad), mb(hwm))
	for _, c := range clients {
		c.ws.Close(websocket.StatusNormalClosure, "")
	}
	return nil
}

// cpuTime is the process's user+system CPU time from /proc/PID/stat.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name in parentheses; utime and stime are
	// the 14th and 15th fields, in clock ticks (100 per second on Linux).
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	var ut, st int64
	fmt.Sscan(f[11], &ut)
	fmt.Sscan(f[12], &st)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

func mb(kb int64) string { return fmt.Sprintf("%.1f MB", float64(kb)/1024) }

func rss(pid int) int64   { return procStatus(pid, "VmRSS:") }
func hwmOf(pid int) int64 { return procStatus(pid, "VmHWM:") }

func procStatus(pid int, key string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, key) {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, key), "kB")), &kb)
			return kb
		}
	}
	return -1
}

// client is a minimal LSP client: requests with ids, answers matched by id,
// notifications dropped.
type client struct {
	ws     *websocket.Conn
	nextID atomic.Int64
	mu     sync.Mutex
	wait   map[int64]chan json.RawMessage
}

func dial(ctx context.Context, url string) (*client, error) {
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(64 << 20)
	c := &client{ws: ws, wait: map[int64]chan json.RawMessage{}}
	go c.readLoop()
	return c, nil
}

func (c *client) readLoop() {
	for {
		_, data, err := c.ws.Read(context.Background())
		if err != nil {
			return
		}
		var m struct {
			ID     *int64          `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(data, &m) != nil || m.ID == nil {
			continue
		}
		if m.Method != "" { // a request from the server: answer null
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": *m.ID, "result": nil})
			_ = c.ws.Write(context.Background(), websocket.MessageText, b)
			continue
		}
		c.mu.Lock()
		ch := c.wait[*m.ID]
		delete(c.wait, *m.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- m.Result
		}
	}
}

func (c *client) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := c.nextID.Add(1)
	ch := make(chan json.RawMessage, 1)
	c.mu.Lock()
	c.wait[id] = ch
	c.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err := c.ws.Write(ctx, websocket.MessageText, b); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *client) notify(ctx context.Context, method string, params any) error {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	return c.ws.Write(ctx, websocket.MessageText, b)
}

func (c *client) open(ctx context.Context, uri, text string) error {
	if _, err := c.call(ctx, "initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}); err != nil {
		return err
	}
	if err := c.notify(ctx, "initialized", map[string]any{}); err != nil {
		return err
	}
	return c.notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "javascript", "version": 1, "text": text}})
}

func (c *client) complete(ctx context.Context, uri string, line, col int) (int, error) {
	r, err := c.call(ctx, "textDocument/completion", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": col}})
	if err != nil {
		return 0, err
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if len(r) > 0 && r[0] == '[' {
		var items []json.RawMessage
		err = json.Unmarshal(r, &items)
		return len(items), err
	}
	err = json.Unmarshal(r, &list)
	return len(list.Items), err
}
