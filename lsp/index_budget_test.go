package lsp

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
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

// TestIndexWalkStopSaid: when the project index's walk stops at
// input.MaxWalkDepth, the user is told once where, and what navigation
// then misses; the index keeps what it found before.
func TestIndexWalkStopSaid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	deep := ""
	for i := range input.MaxWalkDepth + 1 {
		deep += fmt.Sprintf("d%d/", i)
	}
	writeFiles(t, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com\n",
		"a.js":                   "api.rest.v1.get(\"crm\", {}, {});\n",
		deep + "deep.js":         "api.rest.v1.get(\"crm\", {}, {});\n",
	})
	src := config.Sources{ConfigRoot: filepath.Join(dir, "config")}
	srv := newTestServer(t, Options{Session: workspace.NewSession(workspace.SessionOptions{Sources: src})})
	c := connect(t, srv, clientOptions{root: dir})
	a := uri.File(filepath.Join(dir, "a.js"))
	c.open(a, "api.rest.v1.get(\"crm\", {}, {});\n")
	if got := refsOf(t, c, dir, a); strings.Join(got, " ") != "a.js:1:18 config/application.yml:3:18" {
		t.Errorf("references %q: deep.js is past the walk's bound", got)
	}
	var said []protocol.ShowMessageParams
	c.waitFor("a warning saying where the walk stopped", func() bool {
		said = nil
		for _, m := range c.messages {
			if strings.Contains(m.Message, "where its walk stopped") {
				said = append(said, m)
			}
		}
		return len(said) > 0
	})
	want := fmt.Sprintf("(%s is more than %d directories below %s)", filepath.Join(dir, deep), input.MaxWalkDepth, dir)
	if m := said[0]; m.Type != protocol.MessageTypeWarning || !strings.Contains(m.Message, want) || !strings.Contains(m.Message, "references, rename") {
		t.Errorf("message %+v, want it to hold %q", m, want)
	}
	if len(said) != 1 {
		t.Errorf("said %d times", len(said))
	}
}
