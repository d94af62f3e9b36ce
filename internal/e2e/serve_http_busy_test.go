package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestServeHTTPBusyAnswersLargeBodies: at --max-runs 1, with one run
// going, five clients each sending a 3.9 MiB body at once all receive
// 429 with Retry-After, without the server parsing their bodies, and
// the run going answers as usual. Three of them send their whole body
// before they read, as a plain socket or Python's http.client does: the
// server must answer, then take the body, before it closes; closing
// with the body unread reset their connections (a broken pipe, no
// answer). Two are Go's client, which reads while it writes.
func TestServeHTTPBusyAnswersLargeBodies(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	defer svc.Close()
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "application.yml"), []byte("scriptservice:\n  api:\n    - serviceId: svc\n      url: "+svc.URL+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const key = "k3y-for-the-busy-test"
	p := startHTTP(t, nil, "--config-root", root, "--allow-run", "--max-runs", "1", "--token", key)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// goClient posts with Go's transport, which reads the answer while it
	// still writes the body.
	goClient := func(body []byte) (int, string, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, p.base+"/v1/run", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			return 0, "", err
		}
		defer res.Body.Close()
		_, err = io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Retry-After"), err
	}
	// writeFirst sends the request whole on a socket, then reads.
	writeFirst := func(body []byte) (int, string, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", strings.TrimPrefix(p.base, "http://"))
		if err != nil {
			return 0, "", err
		}
		defer c.Close()
		deadline, _ := ctx.Deadline()
		_ = c.SetDeadline(deadline)
		head := fmt.Sprintf("POST /v1/run HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n",
			strings.TrimPrefix(p.base, "http://"), key, len(body))
		if _, err := c.Write(append([]byte(head), body...)); err != nil {
			return 0, "", fmt.Errorf("writing the request: %w", err)
		}
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0, "", fmt.Errorf("reading the answer: %w", err)
		}
		defer res.Body.Close()
		_, err = io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Retry-After"), err
	}

	first := make(chan int, 1)
	go func() {
		code, _, err := goClient([]byte(runThatCalls))
		if err != nil {
			t.Error(err)
		}
		first <- code
	}()
	select {
	case <-entered: // the one slot is taken
	case <-ctx.Done():
		t.Fatal("the first run never called its service")
	}

	large := append(append([]byte(`{"text":"return 1 // `), bytes.Repeat([]byte("x"), 3900<<10)...), `"}`...)
	var wg sync.WaitGroup
	start := time.Now()
	for i, client := range []func([]byte) (int, string, error){writeFirst, writeFirst, writeFirst, goClient, goClient} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, retry, err := client(large)
			if err != nil || code != http.StatusTooManyRequests || retry == "" {
				t.Errorf("client %d: %d, Retry-After %q, %v, after %v", i, code, retry, err, time.Since(start))
			}
		}()
	}
	wg.Wait()
	t.Logf("five 429s in %v", time.Since(start))
	free()
	if code := <-first; code != http.StatusOK {
		t.Errorf("the run going answered %d", code)
	}
}
