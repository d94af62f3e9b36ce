//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunInterruptStopsTheRun: an interrupt sent to restls run itself (a
// terminal's Ctrl-C, or kill -INT from a script that started it) stops
// the script in its child, which still prints its result: a canceled run,
// exit 1, and no process left behind. Before the engine, restls run
// ignored the interrupt itself and counted on the terminal to send it to
// its re-executed self too: sent to restls run alone, it did nothing.
func TestRunInterruptStopsTheRun(t *testing.T) {
	t.Parallel()
	url, arrived, _ := blockingService(t)
	root := isolateRoot(t, url)
	var stdout, stderr bytes.Buffer
	cmd := restlsCommand(t, "run", "--json", "--config-root", root, "-")
	cmd.Stdin = strings.NewReader(`return api.rest.v1.get("slow", {}, {}).body;`)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-arrived:
	case err := <-done:
		t.Fatalf("the run ended before its call: %v\n%s", err, stderr.String())
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the call never reached the service")
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Fatalf("exit %v, want 1; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("restls run still running 20s after the interrupt; stderr:\n%s", stderr.String())
	}
	var res runResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || res.Error == nil || res.Error.Code != "canceled" {
		t.Fatalf("stdout is not one object with error code canceled (%v):\n%s", err, stdout.String())
	}
	if kids := children(t, cmd.Process.Pid); len(kids) > 0 {
		t.Errorf("processes %v outlived restls run", kids)
	}
}

// TestRunVerboseLogsReachStderr: the debug lines of restls run -v are
// written in the run's child and relayed to the user's stderr as they
// come; stdout holds only the preview.
func TestRunVerboseLogsReachStderr(t *testing.T) {
	t.Parallel()
	root := isolateRoot(t, "http://127.0.0.1:1")
	dir := t.TempDir()
	mock := writeFile(t, dir, "m.yaml", "- serviceId: slow\n  method: GET\n  body: {ok: true}\n")
	script := writeFile(t, dir, "s.js", `return api.rest.v1.get("slow", {}, {}).body;`)
	out, errs, rc := runBinary(t, "run", "-v", "--config-root", root, "--mock", mock, script)
	if rc != 0 || !strings.Contains(errs, "DEBUG") || !strings.Contains(errs, "script run") || strings.Contains(out, "DEBUG") {
		t.Fatalf("rc %d\nstdout:\n%s\nstderr:\n%s", rc, out, errs)
	}
}
