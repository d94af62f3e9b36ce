package openapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestLoaderURL(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	fail, hits, notModified := false, 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		hits++
		if fail {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		if r.Header.Get("If-None-Match") == `"v1"` {
			notModified++
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Write(data)
	}))
	defer srv.Close()
	var l Loader
	url := strings.Replace(srv.URL, "http://", "http://user:secret@", 1) + "/shop.yaml?token=secret"
	first, err := l.Load(context.Background(), url)
	if err != nil || len(first.Ops) == 0 {
		t.Fatalf("first load: %v", err)
	}
	if strings.Contains(first.Source, "secret") {
		t.Errorf("source %q names a credential", first.Source)
	}
	again, err := l.Load(context.Background(), url)
	if err != nil || again != first || notModified != 1 {
		t.Fatalf("second load: %v, same %v, 304s %d", err, again == first, notModified)
	}
	mu.Lock()
	fail = true
	mu.Unlock()
	kept, err := l.Load(context.Background(), url)
	if err == nil || kept != first {
		t.Fatalf("failed load: %v, kept %v", err, kept == first)
	}
	if strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "502") || !strings.Contains(err.Error(), "copy loaded before") {
		t.Errorf("error %q", err)
	}
}

func TestLoaderFile(t *testing.T) {
	t.Parallel()
	var l Loader
	if _, err := l.Load(context.Background(), filepath.Join(t.TempDir(), "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"openapi": `), 0o644)
	if _, err := l.Load(context.Background(), bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("broken file: %v", err)
	}
	idx, err := l.Load(context.Background(), "testdata/things31.json")
	if err != nil || idx.Title != "Things" {
		t.Fatalf("things: %v", err)
	}
	if again, _ := l.Load(context.Background(), "testdata/things31.json"); again != idx {
		t.Errorf("an unchanged file was read again")
	}
}

// TestLoaderReleasesLargeReads: loading a large description (file or
// URL) collects the garbage its reading left at once (a forced
// collection, debug.FreeOSMemory); a small one does not.
func TestLoaderReleasesLargeReads(t *testing.T) {
	// Not in parallel: it measures this process's memory, which tests beside it would add to.
	var b strings.Builder
	long := strings.Repeat("A long description. ", 200)
	b.WriteString(`{"openapi": "3.0.3", "info": {"title": "Large", "version": "1"}, "paths": {`)
	for i := 0; b.Len() < releaseAbove; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"/things/t%d/{id}": {"get": {"summary": "Get thing %d", "description": "%s", "responses": {"200": {"description": "the thing"}}}}`, i, i, long)
	}
	b.WriteString("}}")
	large := filepath.Join(t.TempDir(), "large.json")
	if err := os.WriteFile(large, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, b.String())
	}))
	defer srv.Close()
	forced := func() uint32 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.NumForcedGC
	}
	for _, tc := range []struct {
		location string
		release  bool
	}{{"testdata/shop.yaml", false}, {large, true}, {srv.URL + "/large.json", true}} {
		var l Loader
		before := forced()
		if _, err := l.Load(context.Background(), tc.location); err != nil {
			t.Fatal(err)
		}
		if got := forced() > before; got != tc.release {
			t.Errorf("%s: released %v, want %v", tc.location, got, tc.release)
		}
	}
}
