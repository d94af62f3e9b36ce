package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// TestReferenceChainBounded is issue 23's finding 3 through the binary: an
// application.yml where service r_i refers to r_{i-1}, 5,000 links
// (208 KB), took restls services, check and serve past 2.5 GiB within seconds,
// each "refers to X, which is unusable (...)" message quoting the one
// before. Now each message names its own link, and memory stays small.
func TestReferenceChainBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("scriptservice:\n  api:\n    - serviceId: r_0\n      url: https://example.com/\n")
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&b, "    - serviceId: r_%d\n      url: r_%d/x\n", i, i-1)
	}
	if err := os.WriteFile(filepath.Join(dir, "application.yml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "s.js", "return 1;\n")
	t.Run("serve", func(t *testing.T) {
		// Opening the repository is enough: the server loads the
		// configuration and answers restls.services from it.
		p := startServe(t, nil, "--config-root", dir)
		var init protocol.InitializeResult
		if err := p.call(t, protocol.MethodInitialize, &protocol.InitializeParams{}, &init); err != nil {
			t.Fatalf("initialize: %v", err)
		}
		_ = p.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{})
		var m map[string]any
		karg, _ := json.Marshal(map[string]string{"kind": "scriptService"})
		if err := p.call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "restls.services", Arguments: []protocol.LSPAny{karg}}, &m); err != nil {
			t.Fatalf("restls.services: %v", err)
		}
		if !strings.Contains(fmt.Sprint(m), "r_1") {
			t.Errorf("restls.services: %.300v", m)
		}
		_ = p.call(t, protocol.MethodShutdown, nil, nil)
		_ = p.conn.Notify(context.Background(), protocol.MethodExit, nil)
		if rc := p.wait(t); rc != 0 {
			t.Fatalf("exit %d: %.500s", rc, p.stderr.String())
		}
		rss, ok := peakRSS(p.cmd.ProcessState)
		t.Logf("restls serve: peak RSS %d MiB", rss>>20)
		if ok && rss > 150<<20 {
			t.Errorf("peak RSS %d MiB, want at most 150", rss>>20)
		}
	})
	for _, args := range [][]string{
		{"services", "--config-root", dir},
		{"check", "--config-root", dir, dir},
	} {
		t.Run(args[0], func(t *testing.T) {
			cmd := restlsCommand(t, args...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			runWithin(t, cmd, 60*time.Second, errb.String)
			if rc := cmd.ProcessState.ExitCode(); rc != 0 && rc != 1 {
				t.Fatalf("exit %d: %.500s", rc, errb.String())
			}
			rss, ok := peakRSS(cmd.ProcessState)
			t.Logf("restls %s: peak RSS %d MiB, %d bytes of output", args[0], rss>>20, out.Len())
			if ok && rss > 150<<20 {
				t.Errorf("peak RSS %d MiB, want at most 150", rss>>20)
			}
			// 4,999 chain errors of about 250 bytes each.
			if out.Len() > 2<<20 {
				t.Errorf("output of %d bytes", out.Len())
			}
			longest := ""
			for _, l := range strings.Split(out.String(), "\n") {
				if len(l) > len(longest) {
					longest = l
				}
			}
			if len(longest) > 500 {
				t.Errorf("a line of %d bytes: %.300s...", len(longest), longest)
			}
			want := `error: service "r_4000" refers to "r_3999", which itself refers to "r_3998" (r_4000 -> r_3999 -> r_3998); only one level of reference works: give "r_3999" an http(s) address ("r_3998" is a reference as well) (the service is unusable)`
			if !strings.Contains(out.String(), want) {
				t.Errorf("output lacks %q:\n%.1000s", want, out.String())
			}
		})
	}
}
