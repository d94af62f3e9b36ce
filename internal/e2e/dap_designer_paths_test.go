package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDesignerDebugShowsConfigurationRelative: a run's message that
// names a configuration file (a call to a service the configuration
// leaves unusable names the entry's file and line) is shown to a
// designer debug session's page relative to the configuration root, as
// web clients see every configuration path; the server's own directory
// never reaches the page.
func TestDesignerDebugShowsConfigurationRelative(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "config/application.yml", "scriptservice:\n  api:\n    - serviceId: broken\n      url: nowhere/x\n")
	project := writeFile(t, dir, "restls.yaml", "configRoot: config\n")
	text := "return api.rest.v1.get(\"broken\", {}, {});\n"
	cmd := restlsCommand(t, "serve", "--http", "127.0.0.1:0", "--allow-run", "--project", project)
	cmd.Dir = dir
	p := startHTTPCmd(t, cmd)
	d := dialDesignerDAP(t, p.base, p.key)
	d.send("initialize", map[string]any{"adapterID": "restls"})
	d.until("initialize", "")
	d.send("launch", map[string]any{"program": "/designer/scriptService/broken.js", "text": text, "live": true})
	if m := d.until("launch", ""); !m.Success {
		t.Fatalf("launch refused: %s", m.Message)
	}
	d.send("configurationDone", nil)
	console := designerOutput(t, d)
	if !strings.Contains(console, "application.yml:4") {
		t.Errorf("the console does not name the entry (the test's premise):\n%s", console)
	}
	if strings.Contains(console, dir) {
		t.Errorf("the page is shown a path of the server:\n%s", console)
	}
	d.send("disconnect", nil)
	d.until("disconnect", "")
	p.kill(syscall.SIGTERM)
	select {
	case <-p.wait:
	case <-time.After(time.Minute):
		t.Fatal("restls serve still runs a minute after SIGTERM")
	}
}
