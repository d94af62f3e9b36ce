package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/restls/restls/config"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/workspace"
)

// TestServicesSayWhichHaveAnAPI: with --openapi, /v1/services marks the
// services a loaded description serves ("api": true, issue 17), the
// answer changes (a new ETag) when the description has loaded, and polls
// after that are answered from the cache (304 for the ETag).
func TestServicesSayWhichHaveAnAPI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "application.yml"), []byte("scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.test/api\n    - serviceId: other\n      url: https://other.example.test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	desc, err := filepath.Abs("../openapi/testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	log := zaptest.NewLogger(t)
	ls := lsp.NewServer(lsp.Options{Sources: config.Sources{ConfigRoot: dir}, Logger: log, PollInterval: -1,
		OpenAPI: []workspace.APISource{{Location: desc}}})
	s, err := New(Options{LSP: ls, Logger: log, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); hs.Close() })

	type entry struct {
		API bool `json:"api"`
	}
	var first string
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, body := get(t, hs.URL+"/v1/services", nil)
		var m map[string]entry
		if err := json.Unmarshal([]byte(body), &m); err != nil || len(m) != 2 {
			t.Fatalf("/v1/services = %d %s", res.StatusCode, body)
		}
		if first == "" {
			first = res.Header.Get("ETag")
		}
		if m["shop"].API {
			if m["other"].API {
				t.Errorf("other has no description: %s", body)
			}
			if res.Header.Get("ETag") == first {
				t.Errorf("the answer changed but its ETag %s did not", first)
			}
			again, _ := get(t, hs.URL+"/v1/services", map[string]string{"If-None-Match": res.Header.Get("ETag")})
			if again.StatusCode != http.StatusNotModified {
				t.Errorf("a poll after the load = %d, want 304", again.StatusCode)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("shop never got \"api\": true: %s", body)
		}
		time.Sleep(20 * time.Millisecond) // the description loads in the background
	}
}
