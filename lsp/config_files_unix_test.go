//go:build unix

// Unix only: a FIFO and /dev/zero as config files.

package lsp

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
)

// TestSettingsNameDevZero is the repro of issue #13 finding 6 through the
// language server: the editor setting properties: ["/dev/zero"] (or a
// FIFO in a cloned workspace) gives a diagnostic on that path, and the
// server keeps answering, instead of reading forever.
func TestSettingsNameDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "application.yml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: dir}})
	c := connect(t, srv, clientOptions{})
	start := time.Now()
	got := c.diagnostics(uri.File(fifo), 0, 0)
	if len(got) != 1 || got[0].Code != protocol.String(config.CodeNotRegularFile) {
		t.Fatalf("diagnostics on the FIFO: %+v", got)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("FIFO diagnostic after %v, want within 1s", d)
	}

	since := c.now()
	start = time.Now()
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{
		Settings: []byte(`{"restls": {"properties": ["/dev/zero"]}}`),
	})
	got = c.diagnostics(uri.File("/dev/zero"), 0, since)
	if len(got) != 1 || got[0].Code != protocol.String(config.CodeNotRegularFile) {
		t.Fatalf("diagnostics on /dev/zero: %+v", got)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("/dev/zero diagnostic after %v, want within 1s", d)
	}
}
