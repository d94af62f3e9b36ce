package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"
)

// writeScript writes text to scripts/name in root and returns its path.
func writeScript(t *testing.T, root, name, text string) string {
	t.Helper()
	path := filepath.Join(root, "scripts", name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// wantLines fails unless every line of want is in what c heard.
func (c *dapClient) wantLines(want ...string) {
	c.t.Helper()
	got := strings.Join(c.lines, "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			c.t.Errorf("want %q in:\n%s", w, got)
		}
	}
}

// TestDAPHostile: what a script or a client may do to restls dap stays
// bounded, and says so.
func TestDAPHostile(t *testing.T) {
	t.Parallel()

	// A script of 100,000 statements is instrumented, stops at its last
	// line and ends.
	t.Run("100000 statements", func(t *testing.T) {
		t.Parallel()
		root := dapProject(t)
		script := writeScript(t, root, "long.js", "var x = 0;\n"+strings.Repeat("x = x + 1;\n", 100000)+"return x;\n")
		c := startDAP(t, root)
		start := time.Now()
		c.launchWith(map[string]any{"program": script}, script, []map[string]any{{"line": 100001}})
		t.Logf("100,000 statements: configured %v after launch", time.Since(start))
		c.until("event stopped")
		t.Logf("100,000 statements: stopped at the last one %v after launch", time.Since(start))
		c.evaluate("x")
		c.request("continue", map[string]any{"threadId": 1})
		c.runToEnd(nil)
		c.wantLines("response setBreakpoints\n  line 100001 verified=true", "response evaluate: 99999", "output console: result: 100000", "exited 0")
	})

	// Deep recursion while paused: the stack shown is bounded (the
	// innermost 256 frames), pages, and the run goes on.
	t.Run("deep recursion", func(t *testing.T) {
		t.Parallel()
		root := dapProject(t)
		script := writeScript(t, root, "deep.js", "function down(n) {\n  if (n === 0) {\n    return 0;\n  }\n  return 1 + down(n - 1);\n}\nreturn down(3000);\n")
		c := startDAP(t, root)
		c.launchWith(map[string]any{"program": script}, script, []map[string]any{{"line": 3}})
		c.until("event stopped")
		c.request("stackTrace", map[string]any{"threadId": 1})
		st := c.until("response stackTrace").(*godap.StackTraceResponse)
		frames := st.Body.StackFrames
		if n := len(frames); n != 257 || st.Body.TotalFrames != 257 || frames[0].Name != "down" || frames[0].Line != 3 ||
			frames[255].Name != "down" || frames[256].Name != "(more frames, not shown: restls dap shows the innermost 256)" {
			t.Errorf("stack of a 3,000-deep recursion: %d frames (total %d), innermost %+v, last %+v; want the innermost 256, down at line 3, and a last that says the rest is not shown",
				n, st.Body.TotalFrames, frames[0], frames[n-1])
		}
		c.request("stackTrace", map[string]any{"threadId": 1, "startFrame": 250, "levels": 20})
		if st := c.until("response stackTrace").(*godap.StackTraceResponse); len(st.Body.StackFrames) != 7 || st.Body.StackFrames[0].Id != 251 {
			t.Errorf("frames 250 on: %d frames, first %+v; want 7 from id 251", len(st.Body.StackFrames), st.Body.StackFrames[0])
		}
		c.evaluate("n")
		// An outer call of the recursion keeps no values of its own: its
		// scopes say so.
		c.frameScopes(3)
		c.request("continue", map[string]any{"threadId": 1})
		c.runToEnd(nil)
		c.wantLines("response evaluate: 0", "output console: result: 3000", "exited 0",
			"variables of Locals\nresponse variables\n  (not shown) = down calls itself: restls dap keeps the values of its innermost call only (frame 1)")
	})

	// A breakpoint's endless condition is stopped after --max-eval, the
	// run stops there and says why. 500ms, not the default 2 s: the
	// condition spins a CPU until stopped.
	t.Run("endless condition", func(t *testing.T) {
		t.Parallel()
		root := dapProject(t)
		script := writeScript(t, root, "cond.js", "var a = 1;\nvar b = a + 1;\nreturn b;\n")
		c := startDAP(t, root, "--max-eval", "500ms")
		c.launchWith(map[string]any{"program": script}, script, []map[string]any{{"line": 2, "condition": "(function () { while (true) {} })()"}})
		c.runToEnd(func() { c.evaluate("a") })
		c.wantLines("output stderr: breakpoint at line 2: its condition (function () { while (true) {} })() failed: the evaluation took longer than 500ms: it was stopped, the run goes on: stopping there",
			"stopped breakpoint", "response evaluate: 1", "output console: result: 2")
	})

	// A client that never resumes: the session ends after --idle, and
	// its run with it.
	t.Run("client never resumes", func(t *testing.T) {
		t.Parallel()
		root := dapProject(t)
		script := filepath.Join(root, "scripts", "debug.js")
		c := startDAP(t, root, "--idle", "1s")
		c.launchWith(map[string]any{"program": script, "input": map[string]any{"id": "42"}}, script, []map[string]any{{"line": 5}})
		c.until("event stopped")
		c.until("event terminated")
		select {
		case <-c.exited:
			if c.waitErr != nil {
				t.Errorf("restls dap after its idle limit: %v, want exit status 0", c.waitErr)
			}
		case <-time.After(time.Minute):
			t.Fatal("restls dap still runs a minute after its idle limit")
		}
		c.wantLines("output console: restls dap: the client sent nothing for 1s: the session ends (a session's idle limit)")
	})

	// 1,000 breakpoints with conditions: each verified, each condition
	// evaluated where it stands, the run ends; 10,001 in one source are
	// refused.
	t.Run("1000 breakpoints", func(t *testing.T) {
		t.Parallel()
		root := dapProject(t)
		script := writeScript(t, root, "many.js", "var n = 0;\n"+strings.Repeat("n += 1;\n", 1000)+"return n;\n")
		c := startDAP(t, root)
		var bps []map[string]any
		for l := 2; l <= 1001; l++ {
			bps = append(bps, map[string]any{"line": l, "condition": fmt.Sprintf("n === %d", 5000+l)})
		}
		start := time.Now()
		c.launchWith(map[string]any{"program": script}, script, bps)
		c.runToEnd(nil)
		t.Logf("1,000 breakpoints with conditions: the run ended %v after launch", time.Since(start))
		got := strings.Join(c.lines, "\n")
		if n := strings.Count(got, "verified=true"); n != 1000 {
			t.Errorf("%d breakpoints verified, want 1000", n)
		}
		c.wantLines("output console: result: 1000", "exited 0")
		if strings.Contains(got, "stopped") {
			t.Errorf("a false condition stopped the run:\n%s", got)
		}
		c2 := startDAP(t, root)
		c2.request("initialize", map[string]any{"adapterID": "restls"})
		c2.until("response initialize")
		c2.request("launch", map[string]any{"program": script})
		c2.until("event initialized")
		lines := make([]int, 10001)
		for i := range lines {
			lines[i] = 2
		}
		c2.request("setBreakpoints", map[string]any{"source": map[string]any{"path": script}, "lines": lines})
		c2.until("response setBreakpoints")
		c2.wantLines("response setBreakpoints failed: 10001 breakpoints in one source: restls dap keeps at most 10000; remove some")
	})
}
