package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"golang.org/x/text/encoding/unicode"

	"github.com/restls/restls/config"
)

// TestUTF16ConfigPositions: a diagnostic in a UTF-16 service file is
// placed on the text the editor shows (the decoded file), not on its bytes.
func TestUTF16ConfigPositions(t *testing.T) {
	t.Parallel()
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
