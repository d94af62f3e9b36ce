package remote_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/restls/restls/config"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/remote"
	"github.com/restls/restls/web"
)

// backend is a real restls HTTP backend on testdata/config, counting the
// answers it gives by status.
func backend(t *testing.T, token string) (*httptest.Server, *sync.Map) {
	t.Helper()
	ls := lsp.NewServer(lsp.Options{Sources: config.Sources{ConfigRoot: "../testdata/config"}, PollInterval: -1})
	s, err := web.New(web.Options{LSP: ls, Token: token, Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	counts := &sync.Map{}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w}
		s.ServeHTTP(rec, r)
		n, _ := counts.LoadOrStore(rec.status, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
	}))
	t.Cleanup(hs.Close)
	return hs, counts
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = 200
	}
	return r.ResponseWriter.Write(b)
}

func count(m *sync.Map, status int) int64 {
	n, ok := m.Load(status)
	if !ok {
		return 0
	}
	return n.(*atomic.Int64).Load()
}

func TestLoadFromBackend(t *testing.T) {
	hs, counts := backend(t, "")
	l, err := remote.New(hs.URL, remote.Options{Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	local := config.Load(config.Sources{ConfigRoot: "../testdata/config"})
	snap := l.Load(config.Sources{})
	for _, k := range config.Kinds {
		reg := snap.For(k)
		if !reg.Loaded || len(reg.Diagnostics) != 0 {
			t.Errorf("%s: loaded %v, diagnostics %v", k, reg.Loaded, reg.Diagnostics)
		}
		if !slices.Equal(reg.IDs(), local.For(k).IDs()) {
			t.Errorf("%s: ids %v, want the backend's %v", k, reg.IDs(), local.For(k).IDs())
		}
		s, ok := reg.Service("crm-customers")
		if k != config.ScriptTask && (!ok || s.URL != "https://crm.example.com/api/v2/customers" || s.Description != "CRM customers collection") {
			t.Errorf("%s: crm-customers = %+v", k, s)
		}
	}
	if count(counts, 200) != 3 {
		t.Errorf("first load: %d answers 200, want 3 (one per kind)", count(counts, 200))
	}
	// A second load revalidates with the ETag: three 304s, same registry.
	snap2 := l.Load(config.Sources{})
	if count(counts, 304) != 3 || count(counts, 200) != 3 {
		t.Errorf("second load: %d x 200, %d x 304; want the ETag to make it 304s", count(counts, 200), count(counts, 304))
	}
	if !slices.Equal(snap2.For(config.ScriptService).IDs(), snap.For(config.ScriptService).IDs()) {
		t.Errorf("revalidated registry differs")
	}
	// The base address or the /v1/services address both work.
	l2, err := remote.New(hs.URL+"/v1/services?kind=scriptTask", remote.Options{})
	if err != nil || !l2.Load(config.Sources{}).For(config.ScriptService).Loaded {
		t.Errorf("loader from the /v1/services address: %v", err)
	}
}

func failing(t *testing.T, l *remote.Loader, code string, wantIn ...string) {
	t.Helper()
	snap := l.Load(config.Sources{})
	for _, k := range config.Kinds {
		reg := snap.For(k)
		if reg.Loaded || reg.Len() != 0 || len(reg.Diagnostics) != 1 {
			t.Fatalf("%s: loaded %v, %d services, diagnostics %v; want not loaded with one diagnostic", k, reg.Loaded, reg.Len(), reg.Diagnostics)
		}
		d := reg.Diagnostics[0]
		if d.Code != code || d.Severity != config.SeverityError || !strings.Contains(d.Message, "no serviceId hints") {
			t.Errorf("%s: %+v", k, d)
		}
		for _, w := range wantIn {
			if !strings.Contains(d.Message, w) {
				t.Errorf("%s: message %q does not say %q", k, d.Message, w)
			}
		}
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	l, _ := remote.New("http://"+addr, remote.Options{})
	failing(t, l, remote.CodeUnreachable, addr, "connection refused")
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hs.Close()
	defer close(release)
	l, _ := remote.New(hs.URL, remote.Options{Timeout: 100 * time.Millisecond})
	failing(t, l, remote.CodeUnreachable, "no answer within 100ms")
}

func TestTokenNeverInMessages(t *testing.T) {
	const token = "backend-t0ken"
	hs, _ := backend(t, token)
	l, _ := remote.New(hs.URL, remote.Options{Token: "wrong-t0ken"})
	failing(t, l, remote.CodeUnreachable, "401", "--registry-token")
	for _, k := range config.Kinds {
		if m := l.Load(config.Sources{}).For(k).Diagnostics[0].Message; strings.Contains(m, "t0ken") {
			t.Errorf("message shows a token: %s", m)
		}
	}
	l, _ = remote.New(hs.URL, remote.Options{Token: token})
	if !l.Load(config.Sources{}).For(config.ScriptService).Loaded {
		t.Errorf("right token: not loaded")
	}
	// User information in the address is not repeated in messages.
	l, _ = remote.New("http://user:pa55@127.0.0.1:1", remote.Options{Timeout: time.Second})
	if m := l.Load(config.Sources{}).For(config.ScriptService).Diagnostics[0].Message; strings.Contains(m, "pa55") {
		t.Errorf("message shows the password of the address: %s", m)
	}
}

func TestBadAnswers(t *testing.T) {
	for _, body := range []string{`[1,2]`, `null`, `{"a": {"description": "no url"}}`, `<html>`, `{"": {"url": "https://x.example.com"}}`} {
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(body))
		}))
		l, _ := remote.New(hs.URL, remote.Options{})
		t.Run(body, func(t *testing.T) { failing(t, l, remote.CodeBadAnswer) })
		hs.Close()
	}
	hs := httptest.NewServer(http.NotFoundHandler())
	defer hs.Close()
	l, _ := remote.New(hs.URL, remote.Options{})
	failing(t, l, remote.CodeUnreachable, "404")
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"", "127.0.0.1:7373", "ftp://x.example.com", "http://"} {
		if _, err := remote.New(u, remote.Options{}); err == nil || !strings.Contains(err.Error(), "registryUrl") {
			t.Errorf("New(%q) = %v", u, err)
		}
	}
}

// TestRefresh: a refresh reports a change when the backend goes away and
// when it comes back, and the language server then offers (no) serviceIds.
func TestRefresh(t *testing.T) {
	var up atomic.Bool
	up.Store(true)
	real, _ := backend(t, "")
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, real.URL+r.URL.RequestURI(), nil)
		req.Header = r.Header.Clone()
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		for k, v := range res.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(res.StatusCode)
		buf := make([]byte, 64<<10)
		for {
			n, err := res.Body.Read(buf)
			_, _ = w.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}))
	defer hs.Close()
	l, _ := remote.New(hs.URL, remote.Options{Logger: zaptest.NewLogger(t)})
	ls := lsp.NewServer(lsp.Options{Load: l.Load, PollInterval: -1})
	if ls.Session().Registry().Get().For(config.ScriptService).Len() == 0 {
		t.Fatal("no services from the backend")
	}
	ctx := context.Background()
	if l.Refresh(ctx) {
		t.Fatal("refresh reports a change while the backend answers the same")
	}

	up.Store(false)
	if !l.Refresh(ctx) {
		t.Fatal("refresh reports no change when the backend went away")
	}
	ls.Session().Reload()
	reg := ls.Session().Registry().Get().For(config.ScriptService)
	if reg.Loaded || reg.Len() != 0 || !strings.Contains(reg.Diagnostics[0].Message, "503") {
		t.Fatalf("backend down: loaded %v, %d services, %v", reg.Loaded, reg.Len(), reg.Diagnostics)
	}
	up.Store(true)
	if !l.Refresh(ctx) {
		t.Fatal("refresh reports no change when the backend came back")
	}
	ls.Session().Reload()
	if reg := ls.Session().Registry().Get().For(config.ScriptService); !reg.Loaded || reg.Len() == 0 {
		t.Fatalf("backend back: loaded %v, %d services", reg.Loaded, reg.Len())
	}
}

// TestRedirectKeepsTheToken is issue 23's finding 15: a backend answering
// 302 to another port of the same host got the operator's token sent
// there, since net/http keeps Authorization on a same-host redirect. Now
// the redirect is reported, naming where it pointed and what to do, and
// the other server hears nothing.
func TestRedirectKeepsTheToken(t *testing.T) {
	const token = "operator-t0ken"
	var heard atomic.Int32
	var leaked atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		heard.Add(1)
		leaked.Store(r.Header.Get("Authorization"))
		_, _ = w.Write([]byte(`{"x": {"url": "https://x.example.com"}}`))
	}))
	defer other.Close()
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+r.URL.RequestURI(), status)
			}))
			defer first.Close()
			l, err := remote.New(first.URL, remote.Options{Token: token})
			if err != nil {
				t.Fatal(err)
			}
			failing(t, l, remote.CodeUnreachable, "a redirect to \""+other.URL+"/v1/services?kind=", "which restls does not follow", "--registry-url")
			if n := heard.Load(); n != 0 {
				t.Fatalf("the redirect target got %d requests (Authorization %q)", n, leaked.Load())
			}
			for _, k := range config.Kinds {
				if m := l.Load(config.Sources{}).For(k).Diagnostics[0].Message; strings.Contains(m, "t0ken") {
					t.Errorf("message shows the token: %s", m)
				}
			}
		})
	}
}

// TestControlCharacterServiceIDIsABadAnswer: a backend's serviceId holding
// a newline is refused, as the configuration loader refuses it.
func TestControlCharacterServiceIDIsABadAnswer(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"ev\nil; touch /tmp/PWNED #": {"url": "https://x.example.com"}}`))
	}))
	defer hs.Close()
	l, _ := remote.New(hs.URL, remote.Options{})
	failing(t, l, remote.CodeBadAnswer, `serviceId "ev\nil; touch /tmp/PWNED #" holds a control character`)
}
