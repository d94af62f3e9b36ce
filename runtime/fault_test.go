package runtime

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	"github.com/restls/restls/runtime/restclient"
)

// silentListener accepts connections on loopback and never answers them:
// an https service behind it times out connecting (the connection
// timeout covers the TLS handshake), an http one times out reading.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// TestFaultFixturesFailAsTheLiveClient: a script that calls through a
// fixture with a fault sees exactly what it sees when a real service on
// loopback times out, refuses or answers a 2XX that is not JSON: the
// same RestClientError (name, code, serviceId, message, no status),
// catchable, and the same uncaught error when it does not catch it.
func TestFaultFixturesFailAsTheLiveClient(t *testing.T) {
	t.Parallel()
	silent := silentListener(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<html><body><h1>Service Unavailable</h1></body></html>"))
	}))
	t.Cleanup(html.Close)
	reg := registryXML(t, fmt.Sprintf(`<scriptservice>
  <api serviceId="slow-connect" url="https://%s/api"/>
  <api serviceId="slow-read" url="http://%s/api"/>
  <api serviceId="refused" url="http://%s/api"/>
  <api serviceId="html" url="%s/api"/>
</scriptservice>`, silent, silent, closed, html.URL))

	caught := lines(
		`try {`,
		`  api.rest.v1.get(SVC, {pathParams: ["orders", "42"]}, {}, {connectionTimeout: 150, readTimeout: 200});`,
		`  return "answered";`,
		`} catch (e) {`,
		`  return {name: e.name, code: e.code, serviceId: e.serviceId, message: e.message,`,
		`    isError: e instanceof Error, hasStatus: e.status !== undefined};`,
		`}`)
	uncaught := `return api.rest.v1.get(SVC, {pathParams: ["orders", "42"]}, {}, {connectionTimeout: 150, readTimeout: 200}).body;`
	for _, tc := range []struct{ id, fault string }{
		{"slow-connect", restclient.CodeConnectTimeout},
		{"slow-read", restclient.CodeReadTimeout},
		{"refused", restclient.CodeConnectionRefused},
		{"html", restclient.CodeNotJSON},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			fixtures := mock(t, fmt.Sprintf("[{serviceId: %s, method: GET, path: orders/42, fault: %s}]", tc.id, tc.fault))
			withFixture := func(o *Options) { o.Mock = fixtures }
			src := "var SVC = " + fmt.Sprintf("%q", tc.id) + ";\n"

			live := mustReturn(t, run(t, reg, src+caught))
			faked := mustReturn(t, run(t, reg, src+caught, withFixture))
			var got struct {
				Name, Code, ServiceID string
				IsError, HasStatus    bool
			}
			if err := json.Unmarshal([]byte(live), &got); err != nil {
				t.Fatalf("live: %s: %v", live, err)
			}
			if got.Name != "RestClientError" || got.Code != tc.fault || got.ServiceID != tc.id || !got.IsError || got.HasStatus {
				t.Fatalf("the live service did not fail with %s: %s", tc.fault, live)
			}
			if faked != live {
				t.Errorf("fault %s caught:\n fixture %s\n live    %s", tc.fault, faked, live)
			}

			liveErr := run(t, reg, src+uncaught).Error
			fakedErr := run(t, reg, src+uncaught, withFixture).Error
			if liveErr == nil || fakedErr == nil {
				t.Fatalf("uncaught: live %+v, fixture %+v", liveErr, fakedErr)
			}
			if !reflect.DeepEqual(fakedErr, liveErr) {
				t.Errorf("fault %s uncaught:\n fixture %+v\n live    %+v", tc.fault, *fakedErr, *liveErr)
			}
		})
	}
}

// TestConnectionFaultDelayIsNoReadWait: a connection fault's delay is
// spent connecting, so the read timeout does not cut it short (the
// request was never written); a read-timeout fault fails at once.
func TestConnectionFaultDelayIsNoReadWait(t *testing.T) {
	t.Parallel()
	reg := registryXML(t, `<scriptservice><api serviceId="s" url="http://127.0.0.1:9/api"/></scriptservice>`)
	src := `try { api.rest.v1.get("s", {}, {}, {readTimeout: 50}); } catch (e) { return e.code; }`
	for fault, want := range map[string]string{
		`{serviceId: s, fault: connection-refused, delay: 150ms}`: `"connection-refused"`,
		`{serviceId: s, fault: connect-timeout, delay: 150ms}`:    `"connect-timeout"`,
		`{serviceId: s, delay: 150ms, body: {}}`:                  `"read-timeout"`,
		`{serviceId: s, fault: read-timeout}`:                     `"read-timeout"`,
	} {
		got := mustReturn(t, run(t, reg, src, func(o *Options) { o.Mock = mock(t, "["+fault+"]") }))
		if got != want {
			t.Errorf("%s: %s, want %s", fault, got, want)
		}
	}
}
