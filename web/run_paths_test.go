package web

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
)

// TestRunShowsConfigurationRelative: POST /v1/run's error of a call to a
// service the configuration leaves unusable names the entry's file
// relative to the configuration root, never by the server's absolute
// path (web clients see configuration paths so, docs/decisions.md).
func TestRunShowsConfigurationRelative(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "application.yml"), []byte("scriptservice:\n  api:\n    - serviceId: broken\n      url: nowhere/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	s, hs := newTestServer(t, config.Sources{ConfigRoot: root}, func(o *Options) { o.Runner = eng.Run })
	res, body := post(t, hs.URL+"/v1/run", `{"text":"return api.rest.v1.get(\"broken\", {}, {});","live":true}`, map[string]string{"Authorization": "Bearer " + s.key})
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "unusable: application.yml:4:7") {
		t.Fatalf("POST /v1/run = %d %s; want the unusable service's entry named application.yml:4:7", res.StatusCode, body)
	}
	if strings.Contains(body, root) {
		t.Errorf("POST /v1/run names the server's directory %s: %s", root, body)
	}
}
