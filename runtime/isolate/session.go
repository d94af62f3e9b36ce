package isolate

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// SessionOptions start a Session.
type SessionOptions struct {
	// Executable is the restls binary; empty means os.Executable().
	Executable string
	// Args are its arguments (restls dap's, for the designer's debugger).
	Args []string
	// MaxMemory is the child's memory limit, as a run child's (0: none).
	MaxMemory int64
	// Stderr receives the child's stderr (nil discards it).
	Stderr io.Writer
}

// Session is a child process of the restls binary that holds a
// conversation on its stdin and stdout for as long as its parent keeps
// it: restls dap serving one designer's debug session, whose run may
// stand paused for minutes. It is started and watched as a run's child
// is (supervise: a process group of its own, killed with its parent,
// its resident memory polled against MaxMemory), but it has no time
// limit of a run: its own (restls dap's idle limit, --max-debug-run)
// and Stop end it.
type Session struct {
	// In is the child's stdin.
	In io.WriteCloser
	// Out is the child's stdout: it ends (io.EOF) once the child has
	// ended and everything it wrote has been read.
	Out io.Reader
	// Pid is the child's process id.
	Pid int

	cancel context.CancelFunc
	done   chan struct{}
	out    Outcome
}

// StartSession starts a Session; it is killed when ctx ends or Stop is
// called.
func StartSession(ctx context.Context, o SessionOptions) (*Session, error) {
	exe, err := executable(o.Executable)
	if err != nil {
		return nil, fmt.Errorf("find the restls executable: %w", err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		_ = inR.Close()
		_ = inW.Close()
		return nil, err
	}
	cmd := exec.Command(exe, o.Args...)
	cmd.Stdin, cmd.Stdout = inR, outW
	cmd.Stderr = o.Stderr
	if cmd.Stderr == nil {
		cmd.Stderr = io.Discard
	}
	cmd.SysProcAttr = ChildAttr(true)
	err = cmd.Start()
	// Our copies of the child's ends: with the child's gone too, Out
	// reads to its end and In fails.
	_ = inR.Close()
	_ = outW.Close()
	if err != nil {
		_ = inW.Close()
		_ = outR.Close()
		return nil, fmt.Errorf("start restls: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Session{In: inW, Out: outR, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.out, _ = watch(ctx, cmd, o.MaxMemory, 0, false) // no wall: see Session
	}()
	s.Pid = cmd.Process.Pid
	return s, nil
}

// Stop kills the child, if it still runs, and waits for it; the second
// call does nothing more.
func (s *Session) Stop() Outcome {
	s.cancel()
	<-s.done
	_ = s.In.Close()
	return s.out
}
