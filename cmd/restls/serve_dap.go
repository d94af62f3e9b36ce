package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/isolate"
	"github.com/restls/restls/web"
	"github.com/restls/restls/workspace"
)

// debugChildren starts the restls dap child of each designer debug
// session: the dry runs' --max-memory, enforced from outside as for a
// run's child, and its run reported for the audit (--report-runs). The
// project is what the server decided of the session, given on the
// child's stdin before the protocol (--request-stdin,
// isolate.DebugRequest), and the child reads no project file: the
// environment of snap, the one the gate judged, and its sources; snap's
// time limits and engine level, the project file's as this server read
// it; snap's API descriptions, which the child checks its runs' answers
// against as a dry run's are; for a snapshot whose services come from
// --registry-url, the
// registry's services, as a dry run's child receives them: serviceIds,
// URLs and descriptions, no credential and not the backend's token. The
// launch it hears names the kind the server decided. It logs at level,
// the server's (as a dry run's child does), and its log lines join this
// server's log, each at its own level. Its idle limit is --debug-idle,
// the one the /dap socket has before the launch.
func debugChildren(cf *configFlags, maxMemory int64, level string, idle time.Duration, log *zap.Logger) func(context.Context, workspace.Snapshot, []string) (*web.DebugChild, error) {
	base := []string{"dap", "--report-runs", "--request-stdin", "--log-level", level, "--idle", idle.String(), "--max-memory", strconv.FormatInt(maxMemory, 10)}
	return func(ctx context.Context, snap workspace.Snapshot, allow []string) (*web.DebugChild, error) {
		args := slices.Clone(base)
		for _, id := range allow {
			// One flag per serviceId, its value after "=": an id is any
			// string (a comma, a leading dash), as the gate compares it.
			args = append(args, "--allow-services="+id)
		}
		req := isolate.DebugRequestOf(snap.Environment, snap.Config)
		if snap.Config == nil {
			req.Sources = cf.sources()
		}
		req.TimeLimits, req.EngineLevel = snap.TimeLimits, snap.EngineLevel
		for _, a := range snap.APIs {
			if !a.Recorded {
				req.APIs = append(req.APIs, isolate.API{ServiceID: a.ServiceID, Location: a.Location})
			}
		}
		s, err := isolate.StartSession(ctx, isolate.SessionOptions{Args: args, MaxMemory: maxMemory, Stderr: &logLines{log: log}})
		if err != nil {
			return nil, err
		}
		if err := isolate.WriteDebugRequest(s.In, req); err != nil {
			s.Stop()
			return nil, fmt.Errorf("give restls dap the session's environment: %w", err)
		}
		log.Debug("designer debug session started", zap.Int("pid", s.Pid))
		stop := func() string {
			out := s.Stop()
			switch {
			case out.MemoryKilled:
				return "restls dap: " + scriptrt.MemoryLimitMessage(maxMemory)
			case out.Canceled || out.State == nil || out.State.Success():
				return ""
			}
			return fmt.Sprintf("restls dap ended (%s): the server log has its last lines", out.State)
		}
		return &web.DebugChild{In: s.In, Out: s.Out, Stop: stop}, nil
	}
}

// logLines writes each line written to it to log, a line at most 4 KiB
// (a longer one is cut), at the level the line names (restls dap's
// console log: time, level, name, message), else warn (a crash's
// trace).
type logLines struct {
	log  *zap.Logger
	line []byte
}

// lineLevel is the level a console log line of restls dap names, else
// warn; at most error (a child's fatal line must not end this server).
func lineLevel(line []byte) zapcore.Level {
	fields := bytes.SplitN(line, []byte{'\t'}, 3)
	if len(fields) == 3 {
		if l, err := zapcore.ParseLevel(string(fields[1])); err == nil {
			return min(l, zapcore.ErrorLevel)
		}
	}
	return zapcore.WarnLevel
}

func (l *logLines) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.line = append(l.line, p[:min(len(p), max(0, 4<<10-len(l.line)))]...)
			break
		}
		l.line = append(l.line, p[:min(i, max(0, 4<<10-len(l.line)))]...)
		if ce := l.log.Check(lineLevel(l.line), "restls dap (the designer's debugger)"); ce != nil {
			ce.Write(zap.ByteString("line", l.line))
		}
		l.line, p = l.line[:0], p[i+1:]
	}
	return n, nil
}
