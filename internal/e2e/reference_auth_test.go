package e2e_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReferenceNoAuth: an <id>/<suffix> entry takes its base's address
// but not its credentials. restls check and restls services say so (an
// information, service-reference-no-auth), and the 401 a live run then
// gets carries the hint; a 401 answered by a fixture does not.
func TestReferenceNoAuth(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	const secret = "dXNlcjpzM2NyZXQ="
	writeFile(t, cfg, "application.yml", "scriptservice:\n  api:\n    - serviceId: crm\n      url: "+srv.URL+"/api\n"+
		"      authorization: {type: basic, encodedCredentials: "+secret+"}\n"+
		"    - serviceId: crm-orders\n      url: crm/orders\n")
	script := writeFile(t, dir, "orders.js", "return api.rest.v1.get(\"crm-orders\", {}, {}).status.code;\n")
	const hint = `service "crm-orders" takes the address of "crm" (crm/...) but not its basic authorization`

	out, errs, _ := runBinary(t, "check", "--config-root", cfg, script)
	if !strings.Contains(out+errs, "service-reference-no-auth") || !strings.Contains(out+errs, hint) {
		t.Errorf("restls check does not say it:\n%s%s", out, errs)
	}
	out, errs, rc := runBinary(t, "services", "--config-root", cfg)
	if rc != 0 || !strings.Contains(out, "application.yml:7:7: info: "+hint) {
		t.Errorf("restls services (exit %d) does not say it at the url:\n%s%s", rc, out, errs)
	}

	out, errs, _ = runBinary(t, "run", "--json", "--config-root", cfg, script)
	var res struct {
		Error *struct{ Message string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Error == nil {
		t.Fatalf("live run: %v\n%s%s", err, out, errs)
	}
	if msg := res.Error.Message; !strings.Contains(msg, "crm-orders answered 401") || !strings.Contains(msg, hint) ||
		!strings.Contains(msg, `give "crm-orders" an authorization of its own`) {
		t.Errorf("the live 401's message lacks the hint: %q", msg)
	}
	if strings.Contains(out+errs, secret) {
		t.Errorf("a credential is shown:\n%s%s", out, errs)
	}

	mock := writeFile(t, dir, "orders.mock.yaml", "- serviceId: crm-orders\n  status: 401\n")
	out, errs, _ = runBinary(t, "run", "--json", "--config-root", cfg, "--mock", mock, script)
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Error == nil {
		t.Fatalf("mock run: %v\n%s%s", err, out, errs)
	}
	if strings.Contains(res.Error.Message, hint) {
		t.Errorf("a fixture's 401 carries the hint: %q", res.Error.Message)
	}
}
