package workspace

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// holdingServer is a loopback server that takes a description's request
// and holds its answer until the client gives up (or the test ends).
func holdingServer(t *testing.T) (url string, asked <-chan struct{}, requests *atomic.Int32) {
	t.Helper()
	ch := make(chan struct{}, 16)
	release := make(chan struct{})
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		ch <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
		}
		http.Error(w, "held", http.StatusServiceUnavailable)
	}))
	t.Cleanup(func() {
		close(release)
		srv.Close()
	})
	return srv.URL + "/api.json", ch, &n
}

// TestDescriptionsCloseWaitsForLoad: Close while a description is being
// fetched cancels the fetch and returns only after the load ended, its
// log line and OnLoaded's call included, so nothing of the store logs
// after its owner (a test's language server) is gone. Docs after Close
// starts no load. (A delayed load logged after TestInlineValues with
// -count=40: "Log in goroutine after TestInlineValues has completed".)
func TestDescriptionsCloseWaitsForLoad(t *testing.T) {
	t.Parallel()
	url, asked, requests := holdingServer(t)
	core, logs := observer.New(zapcore.InfoLevel)
	d := NewDescriptions(zap.New(core), 0)
	var loaded atomic.Int32
	d.OnLoaded(func() { loaded.Add(1) })
	d.Docs([]APISource{{ServiceID: "shop", Location: url}})
	select {
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the description was never asked for")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Read at once: a load that ended after Close returned would show here
	// as nothing logged and OnLoaded not called.
	if n := logs.FilterMessage("OpenAPI description not loaded").Len(); n != 1 {
		t.Errorf("%d log lines of the failed load when Close returned, want 1 (all: %v)", n, logs.All())
	}
	if n := loaded.Load(); n != 1 {
		t.Errorf("OnLoaded called %d times when Close returned, want 1", n)
	}
	before := logs.Len()
	d.Docs([]APISource{{ServiceID: "other", Location: url + "?2"}})
	if err := d.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests, want 1: Docs after Close started a load", n)
	}
	if logs.Len() != before {
		t.Errorf("logged after Close: %v", logs.All()[before:])
	}
}

// TestDescriptionsCloseStopsDelayed: a first load still waiting its
// delay never starts once the store is closed, and Wait answers
// ErrClosed instead of waiting for it.
func TestDescriptionsCloseStopsDelayed(t *testing.T) {
	t.Parallel()
	url, _, requests := holdingServer(t)
	core, logs := observer.New(zapcore.DebugLevel)
	d := NewDescriptions(zap.New(core), time.Hour)
	src := []APISource{{ServiceID: "shop", Location: url}}
	d.Docs(src)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := d.Wait(ctx, src); !errors.Is(err, ErrClosed) {
		t.Errorf("Wait after Close: %v, want ErrClosed", err)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests after Close, want none", n)
	}
	if logs.Len() != 0 {
		t.Errorf("logged: %v", logs.All())
	}
}
