package dap

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	godap "github.com/google/go-dap"
	"go.uber.org/zap"
)

// DefaultMaxSessions is how many sessions Listen serves at once when
// asked for 0.
const DefaultMaxSessions = 4

// refuseWait bounds how long a connection past the cap is read for the
// request its refusal answers.
const refuseWait = 5 * time.Second

// Listen serves a debug session on each connection ln accepts, at most
// maxSessions at once (DefaultMaxSessions when 0), until ctx ends; each
// session ends as Serve's does. A connection past the cap is answered
// that the server is full, and closed. Listen closes ln.
func Listen(ctx context.Context, ln net.Listener, maxSessions int, o Options) error {
	if maxSessions <= 0 {
		maxSessions = DefaultMaxSessions
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-ctx.Done()
		_ = ln.Close()
	}()
	slots := make(chan struct{}, maxSessions)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		select {
		case slots <- struct{}{}:
		default:
			wg.Add(1)
			go func() {
				defer wg.Done()
				refuse(conn, fmt.Sprintf("restls dap serves at most %d debug sessions at once (--max-sessions): end one, then connect again", maxSessions))
			}()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			defer conn.Close()
			// A connection closed mid-session ends only its own session.
			stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
			defer stop()
			if err := Serve(ctx, conn, conn, o); err != nil && ctx.Err() == nil {
				o.Logger.Info("a debug session ended", zap.String("client", conn.RemoteAddr().String()), zap.Error(err))
			}
		}()
	}
}

// refuse answers the first request read on conn with why, and closes
// it.
func refuse(conn net.Conn, why string) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(refuseWait))
	m, err := godap.ReadProtocolMessage(bufio.NewReader(conn))
	if err != nil {
		return
	}
	req, ok := m.(godap.RequestMessage)
	if !ok {
		return
	}
	r := req.GetRequest()
	s := &session{w: conn, o: Options{Logger: zap.NewNop()}}
	s.reply(r.Seq, r.Command, why)
}
