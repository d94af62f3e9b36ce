//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// aliasBomb is a YAML alias bomb of levels lists of 9 under indent: the
// last expands to 9^levels values.
func aliasBomb(indent string, levels int) string {
	var b strings.Builder
	b.WriteString(indent + "l0: &l0 [x,x,x,x,x,x,x,x,x]\n")
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "%sl%d: &l%d [%s*l%d]\n", indent, i, i, strings.Repeat(fmt.Sprintf("*l%d,", i-1), 8), i-1)
	}
	return b.String()
}

// budgetRSS is what a restls process may reach while refusing an alias
// bomb: its own start-up (about 30 MiB) with room for a busy machine;
// before the YAML budget these bombs took 1.5 GiB and more.
const budgetRSS = 200 << 20

// TestTestFixturesAliasBomb (issue 23, finding 5): a 560-byte alias bomb
// in a test file's fixtures is reported at its alias, the test file
// failing, within a bounded memory; it was killed at 1.5 GiB.
func TestTestFixturesAliasBomb(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "s.js", "return 1;")
	text := "script: s.js\nfixtures:\n  - serviceId: a\n    body:\n" + aliasBomb("      ", 9) + "result: 1\n"
	file := writeFile(t, dir, "bomb.test.yaml", text)
	cmd := restlsCommand(t, testArgs(dir)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("restls test still running after 60 s")
	}
	if rc := cmd.ProcessState.ExitCode(); rc != 1 {
		t.Errorf("exit %d, want 1 (a failing test file); stderr %q", rc, errb.String())
	}
	if want := file + ":9:16: its aliases expand the document"; !strings.Contains(out.String(), want) {
		t.Errorf("output does not say %q:\n%s", want, out.String())
	}
	if rss := maxRSS(t, cmd.ProcessState); rss > budgetRSS {
		t.Errorf("peak RSS %d MiB, want under %d MiB", rss>>20, budgetRSS>>20)
	}
}

// TestServeHTTPPastedMockAliasBomb (issue 23, finding 4, the decode
// part): an 8-level alias bomb in a pasted mock's fixture body is a 400
// naming its line, and the server process stays small; it went from 17
// MiB to 1.5 GiB with no answer in 40 s.
func TestServeHTTPPastedMockAliasBomb(t *testing.T) {
	t.Parallel()
	root := isolateRoot(t, "http://127.0.0.1:1")
	p := startHTTP(t, nil, "--config-root", root, "--allow-run", "--token", "yaml-budget")
	mock := "- serviceId: slow\n  body:\n" + aliasBomb("    ", 8)
	body, _ := json.Marshal(map[string]any{"text": "return 1;", "mock": mock})
	req, _ := http.NewRequest(http.MethodPost, p.base+"/v1/run", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer yaml-budget")
	client := &http.Client{Timeout: 30 * time.Second}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(answer), "pasted mocks:7:14: its aliases expand the document") {
		t.Errorf("POST /v1/run = %d %s, want 400 naming pasted mocks:7:14", res.StatusCode, answer)
	}
	if hwm := peakRSSOf(t, p.pid); hwm > budgetRSS {
		t.Errorf("the server's peak RSS is %d MiB, want under %d MiB", hwm>>20, budgetRSS>>20)
	}
}

// peakRSSOf is the peak resident memory of a running process (VmHWM).
func peakRSSOf(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/pid/status")
	return 0
}

// TestServeRecordedAliasBombs (issue 23, finding 8, the YAML part): nine
// 530-byte alias-bomb *.mock.yaml files beside a script, loaded at once
// by the language server as recorded answers, each fail with the budget
// error, and the server stays small; it reached 2.5 GiB.
func TestServeRecordedAliasBombs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	svcXML := writeFile(t, dir, "services.xml", `<scriptservice><api serviceId="a" url="http://127.0.0.1:1"/></scriptservice>`)
	script := writeFile(t, dir, "orders.js", `return api.rest.v1.get("a", {}, {});`)
	for i := range 9 {
		writeFile(t, dir, fmt.Sprintf("b%d.mock.yaml", i), "- serviceId: a\n  path: x\n  body:\n"+aliasBomb("    ", 9))
	}
	statuses := make(chan []byte, 64)
	p := startServe(t, func(_ context.Context, r *jsonrpc2.Request) (any, error) {
		if r.Method() == "restls/status" {
			select {
			case statuses <- append([]byte(nil), r.Params()...):
			default:
			}
		}
		return nil, nil
	}, "--service-xml", svcXML)
	if err := p.call(t, protocol.MethodInitialize, &protocol.InitializeParams{}, nil); err != nil {
		t.Fatal(err)
	}
	_ = p.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{})
	_ = p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: uri.File(script), LanguageID: "javascript", Version: 1, Text: `return api.rest.v1.get("a", {}, {});`},
	})
	deadline := time.After(60 * time.Second)
	for failed := 0; failed < 9; {
		select {
		case raw := <-statuses:
			var st struct {
				OpenAPI []struct {
					State, Error string
					Recorded     bool
				} `json:"openapi"`
			}
			_ = json.Unmarshal(raw, &st)
			failed = 0
			for _, a := range st.OpenAPI {
				if a.Recorded && a.State == "failed" && strings.Contains(a.Error, "its aliases expand the document") {
					failed++
				}
			}
		case <-deadline:
			t.Fatalf("the nine recorded files did not all fail with the budget error in 60 s\n%s", p.stderr.String())
		}
	}
	if hwm := peakRSSOf(t, p.cmd.Process.Pid); hwm > budgetRSS {
		t.Errorf("the language server's peak RSS is %d MiB, want under %d MiB", hwm>>20, budgetRSS>>20)
	}
}

// TestTestFixturesDuplicateKeys: 20,000 copies of one key in a fixture
// (300 KB) fail at once naming the second copy's line, and the process
// stays small. yaml/v4's own check, which decoding the fixture ran,
// records an error per pair of copies: 200 million here, minutes and
// gigabytes (input.decodeNode).
func TestTestFixturesDuplicateKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "s.js", "return 1;")
	text := "script: s.js\nfixtures:\n  - serviceId: a\n" + strings.Repeat("    status: 200\n", 20_000) + "result: 1\n"
	file := writeFile(t, dir, "dup.test.yaml", text)
	cmd := restlsCommand(t, testArgs(dir)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("restls test still running after 60 s")
	}
	if rc := cmd.ProcessState.ExitCode(); rc != 1 {
		t.Errorf("exit %d, want 1 (a failing test file); stderr %q", rc, errb.String())
	}
	if want := file + ":5:5: mapping key \"status\" already defined at line 4"; !strings.Contains(out.String(), want) {
		t.Errorf("output does not say %q:\n%.2000s", want, out.String())
	}
	if rss := maxRSS(t, cmd.ProcessState); rss > budgetRSS {
		t.Errorf("peak RSS %d MiB, want under %d MiB", rss>>20, budgetRSS>>20)
	}
}
