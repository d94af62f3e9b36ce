package lsp

import (
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// TestIndexLeftOutSaid: when the project index's budget leaves scripts
// out, the user is told which, and what navigation then misses.
func TestIndexLeftOutSaid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com\n",
		"a.js":                   "api.rest.v1.get(\"crm\", {}, {});\n",
		"big.js":                 strings.Repeat("// filler\n", 300) + "api.rest.v1.get(\"crm\", {}, {});\n",
	})
	// The budget is the Session's: the index is.
	src := config.Sources{ConfigRoot: filepath.Join(dir, "config")}
	srv := newTestServer(t, Options{Session: workspace.NewSession(workspace.SessionOptions{Sources: src, IndexMaxBytes: 2000})})
	c := connect(t, srv, clientOptions{root: dir})
	a := uri.File(filepath.Join(dir, "a.js"))
	c.open(a, "api.rest.v1.get(\"crm\", {}, {});\n")
	if got := refsOf(t, c, dir, a); strings.Join(got, " ") != "a.js:1:18 config/application.yml:3:18" {
		t.Errorf("references %q: big.js should be left out", got)
	}
	var msg protocol.ShowMessageParams
	c.waitFor("a warning naming the script left out", func() bool {
		for _, m := range c.messages {
			if strings.Contains(m.Message, "left out") {
				msg = m
				return true
			}
		}
		return false
	})
	if msg.Type != protocol.MessageTypeWarning || !strings.Contains(msg.Message, "1 script past the index's 2000 bytes (big.js)") || !strings.Contains(msg.Message, "(big.js)") ||
		!strings.Contains(msg.Message, "references, rename") {
		t.Errorf("message %+v", msg)
	}
}
