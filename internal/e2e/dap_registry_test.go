package e2e_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDesignerDebugRunsTheServersRegistry: a designer debug run calls
// the service the server saw when it judged the launch. application.yml
// is rewritten after the launch was answered (the gate has decided) and
// before configurationDone (when the run starts): the child, which read
// the files again when the run started, called the other service.
func TestDesignerDebugRunsTheServersRegistry(t *testing.T) {
	t.Parallel()
	service := func(who string) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprintf(w, `{"who":%q}`, who)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	seen, other := service("seen"), service("other")
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "config/application.yml", "scriptservice:\n  api:\n    - serviceId: orders\n      url: "+seen.URL+"/api\n")
	file := writeFile(t, dir, "restls.yaml", "configRoot: config\n")
	cmd := restlsCommand(t, "serve", "--http", "127.0.0.1:0", "--allow-run", "--project", file)
	cmd.Dir = dir
	p := startHTTPCmd(t, cmd)
	d := dialDesignerDAP(t, p.base, p.key)
	d.send("initialize", map[string]any{"adapterID": "restls"})
	d.until("initialize", "")
	d.send("launch", map[string]any{"program": "/designer/scriptService/who.js", "live": true,
		"text": "return api.rest.v1.get(\"orders\", {pathParams: [\"x\"]}, {}).body.who;\n"})
	if m := d.until("launch", ""); !m.Success {
		t.Fatalf("launch refused: %s", m.Message)
	}
	// The server has judged the launch against its registry; the file
	// changes before the run starts.
	writeFile(t, dir, "config/application.yml", "# rewritten after the server decided\nscriptservice:\n  api:\n    - serviceId: orders\n      url: "+other.URL+"/api\n")
	d.send("configurationDone", nil)
	out := designerOutput(t, d)
	if !strings.Contains(out, `result: "seen"`) {
		t.Errorf("the debug run did not call the service the server saw (%s):\n%s", seen.URL, out)
	}
	d.send("disconnect", nil)
	d.until("disconnect", "")
}
