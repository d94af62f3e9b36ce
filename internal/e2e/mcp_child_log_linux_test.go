package e2e_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/runtime/isolate"
)

// TestMCPChildLogsAtItsLevel: the child process of a dry run of restls
// mcp logs at mcp's --log-level, as restls serve's do (it logged at warn
// whatever the flag said). A child's lines reach the log when it ends
// without a result: here it is killed during the run's second call, and
// its debug line of the first call is in mcp's --log-file at debug, and
// not at info.
func TestMCPChildLogsAtItsLevel(t *testing.T) {
	t.Parallel()
	var (
		mu  sync.Mutex
		pid = map[string]int{} // the restls mcp of each level
	)
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if level, ok := strings.CutPrefix(r.URL.Path, "/api/last/"); ok {
			// The run's child wrote its line of the first call: end it
			// before it writes a result.
			mu.Lock()
			parent := pid[level]
			mu.Unlock()
			for _, c := range processChildren(parent, isolate.ChildArg) {
				_ = syscall.Kill(c, syscall.SIGKILL)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(svc.Close)
	for _, level := range []string{"debug", "info"} {
		t.Run(level, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			if err := os.Mkdir(filepath.Join(root, "config"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, root, "config/application.yml", "scriptservice:\n  api:\n    - serviceId: svc\n      url: "+svc.URL+"/api\n")
			writeFile(t, root, "restls.yaml", "configRoot: config\n")
			writeFile(t, root, "two.js", "api.rest.v1.get(\"svc\", {pathParams: [\"first\"]}, {});\n"+
				"api.rest.v1.get(\"svc\", {pathParams: [\"last\", \""+level+"\"]}, {});\nreturn 1;\n")
			logFile := filepath.Join(root, "mcp.log")
			cmd := restlsCommand(t, "mcp", "--allow-live", "--log-file", logFile, "--log-level", level)
			cmd.Dir = root
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "restls-test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatalf("restls mcp: %v\n%s", err, stderr.String())
			}
			mu.Lock()
			pid[level] = cmd.Process.Pid
			mu.Unlock()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "run", Arguments: map[string]any{"path": "two.js", "live": true}})
			if err != nil || !strings.Contains(toolText(res), isolate.CodeRunnerCrashed) {
				t.Errorf("the run whose child was killed: %v %s, want %s", err, toolText(res), isolate.CodeRunnerCrashed)
			}
			// Closing the session ends restls mcp, its log written.
			_ = cs.Close()
			b, err := os.ReadFile(logFile)
			if err != nil {
				t.Fatal(err)
			}
			log := string(b)
			if !strings.Contains(log, "dry run process ended without a result") {
				t.Fatalf("restls mcp --log-level %s logged nothing of the killed child:\n%s", level, log)
			}
			if got, want := strings.Contains(log, "api.rest.v1 call"), level == "debug"; got != want {
				t.Errorf("restls mcp --log-level %s: the child's debug line of its first call in the log: %v, want %v\n%s", level, got, want, log)
			}
		})
	}
}

// processChildren are the processes of pid's children whose first
// argument is arg.
func processChildren(pid int, arg string) []int {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, field := range strings.Fields(string(b)) {
			cmdline, _ := os.ReadFile("/proc/" + field + "/cmdline")
			if args := bytes.Split(cmdline, []byte{0}); len(args) > 1 && string(args[1]) == arg {
				c, _ := strconv.Atoi(field)
				out = append(out, c)
			}
		}
	}
	return out
}
