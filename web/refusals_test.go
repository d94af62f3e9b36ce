package web

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// updating reports whether golden files are rewritten: -update (defined
// once per test binary) or RESTLS_UPDATE_GOLDEN.
func updating() bool {
	f := flag.Lookup("update")
	return (f != nil && f.Value.String() == "true") || os.Getenv("RESTLS_UPDATE_GOLDEN") != ""
}

// TestRefusalsGolden: what each refusal tells the user (status and body),
// checked against testdata/golden/http/refusals.golden; -update rewrites
// it.
func TestRefusalsGolden(t *testing.T) {
	t.Parallel()
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.Runner = func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
			return &dryrun.Result{Result: []byte("1")}, nil
		}
	})
	var b strings.Builder
	show := func(name string, req *http.Request) {
		res, body := do(t, req)
		fmt.Fprintf(&b, "-- %s --\n%d %s\n%s\n", name, res.StatusCode, http.StatusText(res.StatusCode), strings.TrimSpace(body))
		if strings.Contains(body, s.key) {
			t.Errorf("%s shows the key", name)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, hs.URL+"/v1/services", nil)
	req.Host = "rebind.attacker.example"
	show("foreign Host", req)
	req, _ = http.NewRequest(http.MethodGet, hs.URL+"/v1/services", nil)
	req.Header.Set("Origin", "http://evil.example")
	show("foreign Origin", req)
	req, _ = http.NewRequest(http.MethodPost, hs.URL+"/v1/run", strings.NewReader(`{"text":"1"}`))
	req.Header.Set("Content-Type", "application/json")
	show("run without the key", req)
	req, _ = http.NewRequest(http.MethodPost, hs.URL+"/v1/run?access_token="+s.key, strings.NewReader(`{"text":"1"}`))
	req.Header.Set("Content-Type", "text/plain")
	show("run with text/plain", req)

	golden := filepath.Join("testdata", "golden", "http", "refusals.golden")
	if updating() {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("refusals differ from %s (run with -update if intended):\n%s", golden, got)
	}
}
