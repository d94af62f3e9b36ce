package openapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestLoaderRedirectCarriesNoCredential (issue 23, finding 15): a
// description URL with credentials (user information: sent as
// Authorization) whose server answers 302 to another origin, here
// another port of the same loopback host, must not send them there. A
// redirect within the origin is followed with them; one to another
// origin is followed only without them, or refused.
func TestLoaderRedirectCarriesNoCredential(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string // what the other origin received
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization")+" "+r.Header.Get("Cookie")+" "+r.URL.RawQuery+" "+r.URL.User.String())
		mu.Unlock()
		w.Write(data)
	}))
	defer other.Close()
	var sameAuth string
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/moved.yaml": // within the origin
			http.Redirect(w, r, "/shop.yaml", http.StatusFound)
		case "/shop.yaml":
			mu.Lock()
			sameAuth = r.Header.Get("Authorization")
			mu.Unlock()
			w.Write(data)
		default: // to the other port
			http.Redirect(w, r, other.URL+"/shop.yaml", http.StatusFound)
		}
	}))
	defer first.Close()
	withCreds := strings.Replace(first.URL, "http://", "http://user:secret@", 1)

	var l Loader
	idx, err := l.Load(context.Background(), withCreds+"/moved.yaml")
	if err != nil || len(idx.Ops) == 0 {
		t.Fatalf("a redirect within the origin: %v", err)
	}
	if !strings.HasPrefix(sameAuth, "Basic ") {
		t.Errorf("the redirect within the origin lost the credentials: %q", sameAuth)
	}
	idx, err = l.Load(context.Background(), withCreds+"/elsewhere.yaml")
	mu.Lock()
	got := append([]string(nil), seen...)
	mu.Unlock()
	for _, h := range got {
		if strings.Contains(h, "Basic") || strings.Contains(h, "secret") {
			t.Errorf("the other origin received a credential: %q", h)
		}
	}
	if err == nil {
		t.Fatalf("a redirect with credentials to another origin was followed (%d operations)", len(idx.Ops))
	}
	if !strings.Contains(err.Error(), "redirect") || !strings.Contains(err.Error(), other.URL) || strings.Contains(err.Error(), "secret") {
		t.Errorf("error %q: want it to name the redirect and its target, without the credential", err)
	}
	// Without credentials, a redirect to another origin is followed.
	idx, err = l.Load(context.Background(), first.URL+"/elsewhere2.yaml")
	if err != nil || len(idx.Ops) == 0 {
		t.Errorf("a redirect without credentials: %v", err)
	}
	// A loop stops after maxRedirects; https never redirects to http.
	loop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
	}))
	defer loop.Close()
	if _, err := l.Load(context.Background(), loop.URL+"/a"); !errors.Is(err, ErrRedirect) || !strings.Contains(err.Error(), "more than 5 redirects") {
		t.Errorf("a redirect loop: %v", err)
	}
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/shop.yaml", http.StatusFound)
	}))
	defer tls.Close()
	lt := Loader{Client: tls.Client()}
	if _, err := lt.Load(context.Background(), tls.URL+"/shop.yaml"); !errors.Is(err, ErrRedirect) || !strings.Contains(err.Error(), "from https to "+other.URL) {
		t.Errorf("a redirect from https to http: %v", err)
	}
}
