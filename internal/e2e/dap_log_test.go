package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDAPRunLogsToTheLog: a debug run runs in the restls dap process, and
// its runtime's log lines (each api.rest.v1 call at debug) reach the
// process's log at its --log-level, as a run's lines in a child reach
// its parent's: never the service's credential.
func TestDAPRunLogsToTheLog(t *testing.T) {
	t.Parallel()
	const secret = "c2VjcmV0LXVzZXI6UzNjcmV0LXB3LWRhcA=="
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":"answered"}`))
	}))
	defer srv.Close()
	for _, tc := range []struct {
		level string
		want  bool
	}{{"debug", true}, {"info", false}} {
		t.Run(tc.level, func(t *testing.T) {
			root := t.TempDir()
			writeFile(t, root, "application.yml", "scriptservice:\n  api:\n"+
				"    - serviceId: orders\n      url: "+srv.URL+"/api\n"+
				"      authorization: {type: basic, encodedCredentials: "+secret+"}\n")
			logFile := filepath.Join(root, "dap.log")
			c := startDAP(t, root, "--config-root", root, "--log-file", logFile, "--log-level", tc.level)
			c.request("initialize", map[string]any{"adapterID": "restls"})
			c.until("response initialize")
			c.request("launch", map[string]any{"program": "logs.js", "live": true,
				"text": "return api.rest.v1.get(\"orders\", {pathParams: [\"x\"]}, {}).body.ok;\n"})
			c.until("event initialized")
			c.request("configurationDone", nil)
			c.until("event terminated")
			c.request("disconnect", nil)
			c.until("response disconnect")
			_ = c.in.Close()
			<-c.exited
			raw, err := os.ReadFile(logFile)
			if err != nil {
				t.Fatal(err)
			}
			log := string(raw)
			if got := strings.Contains(log, "api.rest.v1 call"); got != tc.want {
				t.Errorf("--log-level %s: the run's api.rest.v1 call line in the log: %v, want %v\nlog:\n%s\ntranscript:\n%s", tc.level, got, tc.want, log, strings.Join(c.lines, "\n"))
			}
			if strings.Contains(log, secret) || strings.Contains(log, "S3cret-pw-dap") {
				t.Errorf("the log holds the service's credential:\n%s", log)
			}
		})
	}
}
