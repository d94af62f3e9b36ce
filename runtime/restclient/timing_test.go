package restclient

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mccutchen/go-httpbin/v2/httpbin"

	"github.com/restls/restls/config"
)

// TestTimingPhasesAndSize checks which phases a call's Timing holds: a
// new connection has connect (and DNS for a host name, TLS for https), a
// reused one neither, a mock answer only a total; ResponseBytes is the
// body after decompression.
func TestTimingPhasesAndSize(t *testing.T) {
	t.Parallel()
	bin := httpbinServer(t)
	tlsBin := httptest.NewTLSServer(httpbin.New().Handler())
	t.Cleanup(tlsBin.Close)
	pool := x509.NewCertPool()
	pool.AddCert(tlsBin.Certificate())
	byName := strings.Replace(bin.URL, "127.0.0.1", "localhost", 1)
	reg := loadRegistry(t, config.ScriptService, servicesXML(
		api("ip", bin.URL, basicAuth("dXNlcjpiMW4tUGFzc3dvcmQ=")),
		api("name", byName, ""),
		api("tls", tlsBin.URL, ""),
	))
	s := New(Options{TLSConfig: &tls.Config{RootCAs: pool}, Trace: true}).Session(reg)
	defer s.Close()

	_, first, err := do(t, s, &Request{ServiceID: "ip", PathParams: []string{"get"}})
	if err != nil {
		t.Fatal(err)
	}
	if tm := first.Timing; tm == nil || tm.Reused || tm.ConnectMs <= 0 || tm.DNSMs != 0 || tm.TLSMs != 0 || tm.TTFBMs <= 0 || tm.TotalMs < tm.TTFBMs {
		t.Errorf("new connection to an IP address: %+v", first.Timing)
	}
	_, again, err := do(t, s, &Request{ServiceID: "ip", PathParams: []string{"get"}})
	if err != nil {
		t.Fatal(err)
	}
	if tm := again.Timing; tm == nil || !tm.Reused || tm.ConnectMs != 0 || tm.DNSMs != 0 || tm.TTFBMs <= 0 {
		t.Errorf("reused connection: %+v", again.Timing)
	}
	if _, c, err := do(t, s, &Request{ServiceID: "name", PathParams: []string{"get"}}); err != nil || c.Timing.DNSMs <= 0 || c.Timing.ConnectMs <= 0 {
		t.Errorf("host name: %v %+v", err, c.Timing)
	}
	if _, c, err := do(t, s, &Request{ServiceID: "tls", PathParams: []string{"get"}}); err != nil || c.Timing.TLSMs <= 0 || c.Timing.ConnectMs <= 0 {
		t.Errorf("https: %v %+v", err, c.Timing)
	}

	resp, gz, err := do(t, s, &Request{ServiceID: "ip", PathParams: []string{"gzip"}})
	if err != nil {
		t.Fatal(err)
	}
	if gz.ResponseBytes != int64(len(resp.Body)) || !strings.Contains(string(resp.Body), `"gzipped": true`) {
		t.Errorf("responseBytes %d, body %d bytes", gz.ResponseBytes, len(resp.Body))
	}
	if w := gz.WireBlocks(); w == nil || !slices.Contains(w.Response, "Content-Encoding: gzip") {
		t.Errorf("the received Content-Encoding is not in the wire block: %+v", w)
	}
	// Marshalling builds the lazy parts.
	if j, _ := json.Marshal(gz); !strings.Contains(string(j), `"curl":"# set RESTLS_BASIC_IP`) || !strings.Contains(string(j), `"Content-Encoding: gzip"`) {
		t.Errorf("JSON %s", j)
	}

	// The header blocks as written and received, credentials masked.
	w := first.WireBlocks()
	if w == nil || w.Request[0] != "GET /get HTTP/1.1" || w.Response[0] != "HTTP/1.1 200 OK" {
		t.Fatalf("wire %+v", w)
	}
	for _, want := range []string{"Host: " + bin.Listener.Addr().String(), "Authorization: Basic ***", "User-Agent: Go-http-client/1.1", "Accept-Encoding: gzip", "Accept: application/json"} {
		if !slices.Contains(w.Request, want) {
			t.Errorf("request block lacks %q: %q", want, w.Request)
		}
	}
	if !slices.Contains(w.Response, "Content-Type: application/json; charset=utf-8") {
		t.Errorf("response block %q", w.Response)
	}
	if strings.Contains(strings.Join(w.Request, "\n"), "dXNlcjpiMW4tUGFzc3dvcmQ=") {
		t.Error("credential in the wire block")
	}

	m, err := ParseMock("m.yaml", []byte(`[{serviceId: ip, body: {ok: true}}]`))
	if err != nil {
		t.Fatal(err)
	}
	ms := New(Options{Mock: m, Trace: true}).Session(reg)
	defer ms.Close()
	_, mc, err := do(t, ms, &Request{ServiceID: "ip"})
	if err != nil {
		t.Fatal(err)
	}
	if tm := mc.Timing; tm == nil || *tm != (Timing{TotalMs: tm.TotalMs}) || mc.WireBlocks() != nil || mc.ResponseBytes != int64(len(`{"ok":true}`)) || mc.CurlCommand() == "" {
		t.Errorf("mock: timing %+v, wire %v, %d bytes, curl %q", mc.Timing, mc.Wire, mc.ResponseBytes, mc.CurlCommand())
	}

	// A call that never went out has no timing and no curl.
	_, nc, err := do(t, s, &Request{ServiceID: "nope"})
	if err == nil || nc.Timing != nil || nc.CurlCommand() != "" || nc.WireBlocks() != nil {
		t.Errorf("unsent call: %v %+v", err, nc)
	}

	// Without Trace: the size and the duration, no phases and no wire
	// blocks; the curl command does not need the trace.
	plain := New(Options{TLSConfig: &tls.Config{RootCAs: pool}}).Session(reg)
	defer plain.Close()
	_, pc, err := do(t, plain, &Request{ServiceID: "ip", PathParams: []string{"get"}})
	if err != nil || pc.Timing != nil || pc.WireBlocks() != nil || pc.ResponseBytes == 0 || pc.DurationMs <= 0 || pc.CurlCommand() == "" {
		t.Errorf("without Trace: %v timing %+v, wire %v, %d bytes, %v ms, curl %q", err, pc.Timing, pc.WireBlocks(), pc.ResponseBytes, pc.DurationMs, pc.CurlCommand())
	}
}
