package main

import (
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// TestDebugChildLogLines: the lines of a designer debug session's
// restls dap child join the server's log at the level each names (the
// child logs at the server's level), a line naming none (a crash's
// trace) at warn, and a fatal one at error: it does not end the server.
func TestDebugChildLogLines(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	w := &logLines{log: zap.New(core)}
	_, _ = w.Write([]byte("2026-11-29T20:00:00.000Z\tdebug\trestls.engine\tdry run\t{\"script\":\"a.js\"}\n" +
		"2026-11-29T20:00:00.000Z\tinfo\trestls.workspace\tconfiguration files changed; reloaded\n" +
		"goroutine 1 [running]:\n\tmain.main()\n" +
		"2026-11-29T20:00:00.000Z\tfatal\trestls\tgone\n"))
	want := []zapcore.Level{zapcore.DebugLevel, zapcore.InfoLevel, zapcore.WarnLevel, zapcore.WarnLevel, zapcore.ErrorLevel}
	got := logs.All()
	if len(got) != len(want) {
		t.Fatalf("%d lines logged, want %d: %+v", len(got), len(want), got)
	}
	for i, e := range got {
		if e.Level != want[i] {
			t.Errorf("line %d (%s) logged at %v, want %v", i, e.ContextMap()["line"], e.Level, want[i])
		}
	}
}
