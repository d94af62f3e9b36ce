package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mccutchen/go-httpbin/v2/httpbin"

	"github.com/restls/restls/internal/goldentest"
	"github.com/restls/restls/internal/oauthtest"
)

const probeSecret = "pr0be-Client-Secret"

// probeServers starts go-httpbin, an OAuth2 server, an untrusted TLS
// server and a closed port, and writes a services XML naming them: bin
// and cc answer, wrong has a wrong client secret, refused and untrusted
// cannot be reached.
func probeServers(t *testing.T) (xmlFile string, tokens *oauthtest.Server) {
	t.Helper()
	bin := httptest.NewServer(httpbin.New().Handler())
	t.Cleanup(bin.Close)
	tokens = oauthtest.New(t, oauthtest.Options{ClientID: "forms", Secret: probeSecret})
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(tlsSrv.Close)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	_ = l.Close()
	xml := fmt.Sprintf(`<scriptservice>
  <api serviceId="bin" url="%[1]s/anything"/>
  <api serviceId="cc" url="%[1]s/bearer"><authorization type="oAuth"><id>cc</id></authorization></api>
  <api serviceId="wrong" url="%[1]s/bearer"><authorization type="oAuth"><id>wrong</id></authorization></api>
  <api serviceId="refused" url="http://%[3]s/api"/>
  <api serviceId="untrusted" url="%[4]s/api"/>
  <oAuth id="cc" url="%[2]s/token" grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientId="forms" clientSecret="%[5]s"/>
  <oAuth id="wrong" url="%[2]s/token" grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientId="forms" clientSecret="not-%[5]s"/>
</scriptservice>`, bin.URL, tokens.URL, closed, tlsSrv.URL, probeSecret)
	return writeFile(t, t.TempDir(), "script-service-api.xml", xml), tokens
}

// maskProbe hides what changes from run to run: timings, ports, a
// token's remaining life, the text of a TLS error.
func maskProbe(s string) string {
	// A step's time is right-aligned in a fixed column: the mask keeps
	// the column's width. A service's total ends its line.
	s = regexp.MustCompile(`\)  \d+\.\d ms\n`).ReplaceAllString(s, ")  #.# ms\n")
	s = regexp.MustCompile(` *\d+\.\d ms`).ReplaceAllStringFunc(s, func(m string) string {
		return strings.Repeat(" ", max(len(m)-len("#.# ms"), 0)) + "#.# ms"
	})
	for _, m := range []struct{ re, to string }{
		{`127\.0\.0\.1:\d+`, "127.0.0.1:PORT"},
		{`expires in \d+ s`, "expires in # s"},
		{`failed the TLS handshake \([^)]*\)`, "failed the TLS handshake (...)"},
	} {
		s = regexp.MustCompile(m.re).ReplaceAllString(s, m.to)
	}
	return s
}

func TestServicesProbe(t *testing.T) {
	t.Parallel()
	xmlFile, tokens := probeServers(t)
	out, errs, rc := run(t, nil, "services", "--service-xml", xmlFile, "--probe")
	if rc != 1 || errs != "" {
		t.Fatalf("rc %d (want 1: some probes fail), stderr %q\n%s", rc, errs, out)
	}
	goldentest.Check(t, "testdata/golden/services/probe.golden", maskProbe(out))
	for _, secret := range append([]string{probeSecret}, tokens.Issued()...) {
		if strings.Contains(out, secret) {
			t.Errorf("the report holds a credential %q", secret)
		}
	}

	// Only the ids given, in their order; all answer: exit 0.
	out, errs, rc = run(t, nil, "services", "--service-xml", xmlFile, "--json", "--probe", "cc", "bin")
	if rc != 0 || errs != "" {
		t.Fatalf("rc %d, stderr %q\n%s", rc, errs, out)
	}
	var got struct {
		Kind   string `json:"kind"`
		OK     bool   `json:"ok"`
		Probes []struct {
			ServiceID string `json:"serviceId"`
			OK        bool   `json:"ok"`
			Status    int    `json:"status"`
			Steps     []struct {
				Step    string  `json:"step"`
				Outcome string  `json:"outcome"`
				Ms      float64 `json:"ms"`
			} `json:"steps"`
		} `json:"probes"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !got.OK || got.Kind != "scriptService" || len(got.Probes) != 2 || got.Probes[0].ServiceID != "cc" || got.Probes[1].ServiceID != "bin" {
		t.Fatalf("%+v", got)
	}
	// go-httpbin's /bearer answers 200 only with a bearer token.
	if p := got.Probes[0]; !p.OK || p.Status != 200 || p.Steps[0].Step != "token" || p.Steps[0].Ms <= 0 {
		t.Errorf("cc: %+v", p)
	}

	// A probe of an id that is not configured fails.
	if _, _, rc := run(t, nil, "services", "--service-xml", xmlFile, "--probe", "nosuch"); rc != 1 {
		t.Errorf("unknown id: rc %d, want 1", rc)
	}
	// A flag after the ids is a usage error, not a serviceId.
	if _, errs, rc := run(t, nil, "services", "--service-xml", xmlFile, "--probe", "bin", "--json"); rc != 2 || !strings.Contains(errs, "--json comes after a serviceId") {
		t.Errorf("flag after the ids: rc %d, stderr %q", rc, errs)
	}
	// Arguments without --probe stay a usage error.
	if _, _, rc := run(t, nil, "services", "--service-xml", xmlFile, "bin"); rc != 2 {
		t.Errorf("argument without --probe: rc %d, want 2", rc)
	}
}

// TestServicesProbeTrickle is issue 33's point 7 through the command: a
// token endpoint that sends its headers and then a byte of body every
// 20 ms held restls services --probe for ever. The bound of each probe is
// 3 x (connection + read timeout), here from a platform config of 100
// and 500 ms: the command ends with the slow service failed and the
// others probed. (With a 200 ms read timeout, httpbin's answer to the
// other probe missed it on a loaded machine.)
func TestServicesProbeTrickle(t *testing.T) {
	// Not in parallel: its 1.8 s bound is wall time, which tests beside it would stretch.
	stop := make(chan struct{})
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("{"))
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if http.NewResponseController(w).Flush() != nil {
				return
			}
			select {
			case <-r.Context().Done():
				return
			case <-stop:
				return
			case <-tick.C:
				_, _ = w.Write([]byte(" "))
			}
		}
	}))
	t.Cleanup(tokens.Close)
	t.Cleanup(func() { close(stop) })
	bin := httptest.NewServer(httpbin.New().Handler())
	t.Cleanup(bin.Close)
	dir := t.TempDir()
	xmlFile := writeFile(t, dir, "script-service-api.xml", fmt.Sprintf(`<scriptservice>
  <api serviceId="bin" url="%[1]s/anything"/>
  <api serviceId="slow" url="%[1]s/bearer"><authorization type="oAuth"><id>slow</id></authorization></api>
  <oAuth id="slow" url="%[2]s/token" grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientId="forms" clientSecret="%[3]s"/>
</scriptservice>`, bin.URL, tokens.URL, probeSecret))
	platform := writeFile(t, dir, "config.xml", `<config><acme><restclient><connection-timeout default="100" maximum="1000"/><read-timeout default="500" maximum="1000"/></restclient></acme></config>`)
	type result struct {
		out, errs string
		rc        int
	}
	done := make(chan result, 1)
	go func() {
		out, errs, rc := run(t, nil, "services", "--service-xml", xmlFile, "--platform-config", platform, "--json", "--probe")
		done <- result{out, errs, rc}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("restls services --probe still runs after 20 s (bound 1.8 s per service)")
	}
	var got probeJSON
	if err := json.Unmarshal([]byte(r.out), &got); err != nil || r.rc != 1 || r.errs != "" {
		t.Fatalf("exit %d, stderr %q, %v:\n%s", r.rc, r.errs, err, r.out)
	}
	for _, p := range got.Probes {
		switch {
		case p.ServiceID == "bin" && !p.OK:
			t.Errorf("bin: %+v", p)
		case p.ServiceID == "slow" && (p.OK || p.FailedStep != "token" || p.ErrorCode != "probe-timeout" || !strings.Contains(p.Message, "bound of 1.8s")):
			t.Errorf("slow: %+v, want the token step stopped at the bound", p)
		}
	}
	if strings.Contains(r.out, probeSecret) {
		t.Error("the report holds the client secret")
	}
}
