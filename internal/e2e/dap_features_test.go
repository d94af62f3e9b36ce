package e2e_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/restls/restls/internal/goldentest"
)

// launchWith initializes, launches with args, sets breakpoints (lines,
// or maps with condition, hitCondition, logMessage) in the script and
// the exception filters, and says configurationDone.
func (c *dapClient) launchWith(args map[string]any, script string, bps []map[string]any, filters ...string) {
	c.t.Helper()
	c.request("initialize", map[string]any{"adapterID": "restls", "linesStartAt1": true, "columnsStartAt1": true})
	c.until("response initialize")
	c.request("launch", args)
	c.until("event initialized")
	if bps != nil {
		c.request("setBreakpoints", map[string]any{"source": map[string]any{"path": script}, "breakpoints": bps})
		c.until("response setBreakpoints")
	}
	if filters != nil {
		c.request("setExceptionBreakpoints", map[string]any{"filters": filters})
		c.until("response setExceptionBreakpoints")
	}
	c.request("configurationDone", nil)
	c.until("response configurationDone")
}

// runToEnd continues from each stop, with do at each, until the run
// ends; then disconnects.
func (c *dapClient) runToEnd(do func()) {
	c.t.Helper()
	for {
		m := c.next()
		if e, ok := m.(godap.EventMessage); ok {
			switch e.GetEvent().Event {
			case "stopped":
				if do != nil {
					do()
				}
				c.request("continue", map[string]any{"threadId": 1})
				c.until("response continue")
			case "terminated":
				c.request("disconnect", nil)
				c.until("response disconnect")
				return
			}
		}
	}
}

// TestDAPExceptionFilters runs scripts/exceptions.js under each
// exception filter: all stops at the caught 404, the throw statement,
// the TypeError at its catch and the RestClientError no catch takes;
// uncaught at the last only; apiError at the 404; restClientError at the
// no-fixture; none at nothing. Each stop's exception and stack are
// golden.
func TestDAPExceptionFilters(t *testing.T) {
	t.Parallel()
	root := dapProject(t)
	script := filepath.Join(root, "scripts", "exceptions.js")
	var all []string
	for _, filters := range [][]string{{"all"}, {"uncaught"}, {"apiError"}, {"restClientError"}, {}} {
		c := startDAP(t, root)
		c.launchWith(map[string]any{"program": script}, script, nil, filters...)
		c.runToEnd(func() {
			c.request("exceptionInfo", map[string]any{"threadId": 1})
			c.until("response exceptionInfo")
			c.stackTrace()
			c.evaluate("seen")
		})
		all = append(all, fmt.Sprintf("== filters %v", filters))
		for _, l := range c.lines {
			if strings.HasPrefix(l, "stopped") || strings.HasPrefix(l, "response exceptionInfo") || strings.HasPrefix(l, "  ") ||
				strings.HasPrefix(l, "response evaluate") || strings.HasPrefix(l, "exited") {
				all = append(all, l)
			}
		}
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "dap", "exceptions.txt"), strings.Join(all, "\n")+"\n")
}

// TestDAPConditionsHitsLogpoints: a breakpoint with a condition stops
// only where it is true, one with a hit count at every fourth hit, a
// logpoint logs its message with the values in braces and never stops;
// a condition that does not parse, a hit count that does not read and a
// line without a statement are refused with why.
func TestDAPConditionsHitsLogpoints(t *testing.T) {
	t.Parallel()
	root := dapProject(t)
	script := filepath.Join(root, "scripts", "loop.js")
	c := startDAP(t, root)
	c.launchWith(map[string]any{"program": script}, script, []map[string]any{
		{"line": 4, "condition": "i == 7"},
		{"line": 5, "hitCondition": "%4"},
		{"line": 6, "logMessage": "i={i} total={total} name={'n' + i} bad={nope}"},
		{"line": 2, "condition": "total =="},
		{"line": 8, "hitCondition": "often"},
		{"line": 7},
	})
	c.runToEnd(func() { c.evaluate("i") })
	goldentest.Check(t, filepath.Join("testdata", "golden", "dap", "conditions.txt"), strings.Join(c.lines, "\n")+"\n")
}

// TestDAPClosureScopes stops inside a closure: its Locals, the Closure
// of the function that made it, the Script's names and context.input.
func TestDAPClosureScopes(t *testing.T) {
	t.Parallel()
	root := dapProject(t)
	script := filepath.Join(root, "scripts", "closure.js")
	c := startDAP(t, root)
	c.launchWith(map[string]any{"program": script, "input": map[string]any{"start": 40}}, script, []map[string]any{{"line": 6}})
	c.until("event stopped")
	c.stackTrace()
	c.scopes("c")
	c.request("continue", map[string]any{"threadId": 1})
	c.until("event terminated")
	goldentest.Check(t, filepath.Join("testdata", "golden", "dap", "closure.txt"), strings.Join(c.lines, "\n")+"\n")
}

// TestDAPTestCase debugs cases of scripts/debug.test.yaml: the case's
// input and fixtures answer, a breakpoint stops in its script, and the
// console says whether the case passed or, with restls test's words,
// why not. A case that does not exist is refused with the names of
// those that do.
func TestDAPTestCase(t *testing.T) {
	t.Parallel()
	root := dapProject(t)
	testFile := filepath.Join(root, "scripts", "debug.test.yaml")
	script := filepath.Join(root, "scripts", "debug.js")
	var all []string
	for _, name := range []string{"paid order", "wrong total"} {
		c := startDAP(t, root)
		c.launchWith(map[string]any{"testFile": testFile, "case": name}, script, []map[string]any{{"line": 10}})
		c.runToEnd(func() { c.evaluate("context.input.id") })
		all = append(all, "== case "+name)
		all = append(all, c.lines...)
	}
	c := startDAP(t, root)
	c.request("launch", map[string]any{"testFile": testFile, "case": "nope"})
	c.until("response launch")
	all = append(all, "== case nope", c.lines[len(c.lines)-1])
	goldentest.Check(t, filepath.Join("testdata", "golden", "dap", "testcase.txt"), strings.Join(all, "\n")+"\n")
}

// TestDAPReplay records a live run of a script against a service on
// loopback (restls run --save, and --json, and --record), stops the
// service, and replays the run through restls dap three ways: the last
// run in the history, the --json output, the recorded fixtures file.
// Every call is identical to the recorded one, byte for byte (method,
// URL, request body, status, response body), and so is the result.
func TestDAPReplay(t *testing.T) {
	t.Parallel()
	svc := newOrdersService(t)
	root := dapProject(t)
	cfg := filepath.Join(root, "config", "application.yml")
	if err := os.WriteFile(cfg, []byte("scriptservice:\n  api:\n    - serviceId: orders\n      url: "+svc.URL+"/api\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(root, "scripts", "replay.js")
	if err := os.WriteFile(script, []byte(`var made = api.rest.v1.post("orders", {pathParams: ["orders"]}, {}, {item: context.input.item, n: 2});
var got = api.rest.v1.get("orders", {pathParams: ["orders", made.body.id], queryParams: {full: "yes"}}, {});
var slow = "answered";
try {
  api.rest.v1.get("orders", {pathParams: ["slow"]}, {}, {readTimeout: 200});
} catch (e) {
  slow = e.code;
}
console.log("slow: " + slow);
return {id: made.body.id, item: got.body.item, at: got.body.at};
`), 0o644); err != nil {
		t.Fatal(err)
	}
	hist := t.TempDir()
	env := append(os.Environ(), "RESTLS_HISTORY="+hist)
	inputFile := filepath.Join(root, "input.json")
	if err := os.WriteFile(inputFile, []byte(`{"item": "book"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	recorded := filepath.Join(root, "recorded.mock.yaml")
	run := restlsCommand(t, "run", "--save", "--json", "--input", inputFile, "--record", recorded, script)
	run.Dir, run.Env = root, env
	jsonOut, err := run.Output()
	if err != nil {
		t.Fatalf("restls run: %v\n%s", err, jsonOut)
	}
	runJSON := filepath.Join(root, "run.json")
	if err := os.WriteFile(runJSON, jsonOut, 0o644); err != nil {
		t.Fatal(err)
	}
	svc.Close() // every service stopped: a replay sends nothing
	want := regexp.MustCompile(`"result": (\{[^}]*\})`).FindSubmatch(jsonOut)
	if want == nil {
		t.Fatalf("restls run --json printed no result:\n%s", jsonOut)
	}
	for _, replay := range []string{"last", runJSON, recorded} {
		c := startDAPEnv(t, root, env)
		args := map[string]any{"program": script, "replay": replay}
		if replay != "last" {
			args["input"] = map[string]any{"item": "book"} // --json output and a fixtures file hold no input
		}
		c.launchWith(args, script, []map[string]any{{"line": 3}})
		c.runToEnd(func() { c.evaluate("made.body.id") })
		got := strings.Join(c.lines, "\n")
		for _, line := range []string{
			"output console: replay: call 1 (POST orders): identical to the recorded call",
			"output console: replay: call 2 (GET orders): identical to the recorded call",
			// The call that timed out times out again (a fault fixture).
			"output console: replay: call 3 (GET orders): identical to the recorded call",
			"output stdout: slow: read-timeout",
			"output console: replay: the result is identical to the recorded run's",
		} {
			if replay != recorded && !strings.Contains(got, line) {
				t.Errorf("replay %s: want %q in:\n%s", replay, line, got)
			}
		}
		compact := strings.NewReplacer("\n", "", " ", "").Replace(string(want[1]))
		if !strings.Contains(strings.ReplaceAll(got, " ", ""), "outputconsole:result:"+compact) {
			t.Errorf("replay %s: want the recorded result %s in:\n%s", replay, want[1], got)
		}
		if strings.Contains(got, "connection-refused") || !strings.Contains(got, "exited 0") {
			t.Errorf("replay %s: a call was not answered from the recording:\n%s", replay, got)
		}
	}
}

// TestDAPListen serves clients that connect: one session at a time with
// --max-sessions 1, the second connection refused with why; a listen
// address that is not loopback is refused unless --allow-remote.
func TestDAPListen(t *testing.T) {
	t.Parallel()
	root := dapProject(t)
	bad := restlsCommand(t, "dap", "--listen", "0.0.0.0:0")
	bad.Dir = root
	out, err := bad.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "not a loopback address") {
		t.Errorf("restls dap --listen 0.0.0.0:0: %v\n%s\nwant exit 2 and a refusal", err, out)
	}
	cmd := restlsCommand(t, "dap", "--listen", "127.0.0.1:0", "--max-sessions", "1")
	cmd.Dir = root
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimSpace(strings.TrimPrefix(line, "restls dap: listening on "))
	first := dialDAP(t, addr)
	first.request("initialize", map[string]any{"adapterID": "restls"})
	if r := first.until("response initialize").(godap.ResponseMessage).GetResponse(); !r.Success {
		t.Fatalf("first session refused: %s", r.Message)
	}
	second := dialDAP(t, addr)
	second.request("initialize", map[string]any{"adapterID": "restls"})
	r := second.until("response initialize").(godap.ResponseMessage).GetResponse()
	if r.Success || !strings.Contains(r.Message, "at most 1 debug sessions at once") {
		t.Errorf("second session: success=%v %q, want a refusal naming the cap", r.Success, r.Message)
	}
	// The first session debugs as over stdio.
	script := filepath.Join(root, "scripts", "debug.js")
	first.request("launch", map[string]any{"program": script, "input": map[string]any{"id": "42"}})
	first.until("event initialized")
	first.request("configurationDone", nil)
	first.until("event terminated")
	if got := strings.Join(first.lines, "\n"); !strings.Contains(got, `result: {"status":"paid","total":5}`) {
		t.Errorf("the listening session's run:\n%s", got)
	}
}

// dialDAP connects a client to restls dap --listen.
func dialDAP(t *testing.T, addr string) *dapClient {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	c := &dapClient{t: t, in: conn, raw: &recordingReader{r: conn}, exited: make(chan struct{})}
	c.read()
	return c
}

// newOrdersService is a service on loopback that makes orders and
// answers them with the time it answered: a replay that called it would
// not get the recorded answers.
func newOrdersService(t *testing.T) *httptest.Server {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/api/orders":
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			var in struct{ Item string }
			_ = json.Unmarshal(body, &in)
			fmt.Fprintf(w, `{"id": "o-%d", "item": %q}`, n.Add(1), in.Item)
		case r.URL.Path == "/api/slow":
			select { // past the script's read timeout
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/orders/") && r.URL.Query().Get("full") == "yes":
			fmt.Fprintf(w, `{"id": %q, "item": "book", "at": %q}`, strings.TrimPrefix(r.URL.Path, "/api/orders/"), time.Now().Format(time.RFC3339Nano))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}
