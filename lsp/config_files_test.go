package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"golang.org/x/text/encoding/unicode"

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

// TestUTF16ConfigPositions: a diagnostic in a UTF-16 service file is
// placed on the text the editor shows (the decoded file), not on its bytes.
func TestUTF16ConfigPositions(t *testing.T) {
	dir := t.TempDir()
	line3 := `  <api serviceId="ä" url="https://a.example.com"/><api serviceId="b" url="ftp:x"/>`
	text := "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<scriptservice>\n" + line3 + "\n</scriptservice>\n"
	data, err := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().String(text)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, config.ServiceXMLPath)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: dir}})
	c := connect(t, srv, clientOptions{})
	got := c.diagnostics(uri.File(path), 0, 0)
	// "ä" is one UTF-16 unit, and two bytes in UTF-8 and in UTF-16.
	want := protocol.Position{Line: 2, Character: uint32(len([]rune(line3[:strings.Index(line3, `<api serviceId="b"`)])))}
	if len(got) != 1 || got[0].Range.Start != want {
		t.Fatalf("diagnostics %+v, want one starting at %+v", got, want)
	}
}
