package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/coder/websocket"
	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// ErrSlowClient ends a session whose client does not take its messages:
// the send queue filled up or one message took longer than the write
// timeout.
var ErrSlowClient = errors.New("web: WebSocket client too slow; session dropped")

// wsStream is a jsonrpc2.Stream over a WebSocket: one JSON-RPC message per
// text frame, no Content-Length framing.
//
// Writes never block the language server: Write puts the message in a
// bounded queue and one goroutine sends it with a deadline. A client that
// stops reading fills the queue or misses the deadline, and its socket is
// closed; its session ends and nobody else waits on it.
type wsStream struct {
	c            *websocket.Conn
	log          *zap.Logger
	writeTimeout time.Duration

	queue   chan []byte
	done    chan struct{} // closed by fail or Close
	drained chan struct{} // closed when sendLoop reaches the drain marker
	drainMu sync.Once

	// shutdown, when done, makes Close say "going away" instead of a normal
	// closure.
	shutdown context.Context
	// watch times requests for the metrics; nil without them.
	watch *rpcWatch
	// reloads sees every message read, for the audit of restls.reload;
	// nil without an audit.
	reloads func(jsonrpc2.Message)
	once    sync.Once
	err     error // why the stream ended; set before done closes
}

func newWSStream(c *websocket.Conn, log *zap.Logger, writeTimeout time.Duration, queue int) *wsStream {
	s := &wsStream{c: c, log: log, writeTimeout: writeTimeout,
		queue: make(chan []byte, queue), done: make(chan struct{}), drained: make(chan struct{})}
	go s.sendLoop()
	return s
}

func (s *wsStream) sendLoop() {
	for {
		select {
		case <-s.done:
			return
		case b := <-s.queue:
			if b == nil {
				close(s.drained)
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), s.writeTimeout)
			err := s.c.Write(ctx, websocket.MessageText, b)
			cancel()
			if err != nil {
				if ctx.Err() != nil {
					err = fmt.Errorf("%w: a message took longer than %s", ErrSlowClient, s.writeTimeout)
				}
				s.fail(err)
				return
			}
		}
	}
}

// fail ends the stream once: the socket closes at once, Read returns, and
// the session ends.
func (s *wsStream) fail(err error) { s.shut(err, 0, "") }

// shut ends the stream once. With a status it sends a close frame in the
// background (a close handshake waits for the peer); without one it drops
// the connection. Either way nothing here blocks: fail runs on the language
// server's goroutines when the queue is full.
func (s *wsStream) shut(err error, status websocket.StatusCode, reason string) {
	s.once.Do(func() {
		s.err = err
		close(s.done)
		if errors.Is(err, ErrSlowClient) {
			s.log.Warn("dropping a WebSocket session", zap.Error(err))
		}
		if status == 0 {
			_ = s.c.CloseNow()
			return
		}
		go func() { _ = s.c.Close(status, reason) }()
	})
}

// Read implements jsonrpc2.Stream. A frame that is not a JSON-RPC message is
// answered with an error response (id null) and skipped, as the stdio
// stream does; only the end of the socket ends the stream.
//
// The read ignores ctx: coder/websocket drops the connection when a read's
// context ends, which would cut off the close frame Close sends. Every way a
// session ends closes the socket, and that ends the read.
func (s *wsStream) Read(_ context.Context) (jsonrpc2.Message, int64, error) {
	for {
		typ, data, err := s.c.Read(context.Background())
		if err != nil {
			select {
			case <-s.done:
				if s.err != nil {
					return nil, 0, s.err
				}
			default:
			}
			switch websocket.CloseStatus(err) {
			case websocket.StatusNormalClosure, websocket.StatusGoingAway:
				return nil, 0, io.EOF
			}
			return nil, 0, err
		}
		if typ != websocket.MessageText {
			s.writeError(jsonrpc2.NewError(jsonrpc2.ParseError, "binary frame: send one JSON-RPC message per text frame"))
			continue
		}
		msg, err := jsonrpc2.DecodeMessage(data)
		if err != nil {
			s.log.Debug("answered a malformed JSON-RPC message", zap.Error(err), zap.Int("bytes", len(data)))
			s.writeError(jsonrpc2.Errorf(jsonrpc2.ParseError, "malformed JSON-RPC message: %v", err))
			continue
		}
		s.watch.read(msg)
		if s.reloads != nil {
			s.reloads(msg)
		}
		return msg, int64(len(data)), nil
	}
}

// Write implements jsonrpc2.Stream; it queues the message and returns.
func (s *wsStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	b, err := jsonrpc2.EncodeMessage(msg)
	if err != nil {
		return 0, err
	}
	s.watch.wrote(b)
	return s.enqueue(b)
}

func (s *wsStream) enqueue(b []byte) (int64, error) {
	select {
	case <-s.done:
		return 0, s.closedErr()
	default:
	}
	select {
	case s.queue <- b:
		return int64(len(b)), nil
	default:
		err := fmt.Errorf("%w: %d messages waiting", ErrSlowClient, cap(s.queue))
		s.fail(err)
		return 0, err
	}
}

func (s *wsStream) closedErr() error {
	if s.err != nil {
		return s.err
	}
	return io.ErrClosedPipe
}

func (s *wsStream) writeError(e *jsonrpc2.Error) {
	b, err := jsonrpc2.EncodeMessage(jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, e))
	if err == nil {
		_, _ = s.enqueue(b)
	}
}

// closeRestart is the reason of the 1012 (service restart) close a
// stopping server sends: the designer module reconnects on it.
const closeRestart = "restls is restarting: reconnect"

// Close implements jsonrpc2.Stream: what is queued is sent first (within
// the write timeout), then the socket closes.
func (s *wsStream) Close() error {
	s.drain()
	if s.shutdown != nil && s.shutdown.Err() != nil {
		s.shut(io.ErrClosedPipe, websocket.StatusServiceRestart, closeRestart)
	} else {
		s.shut(io.ErrClosedPipe, websocket.StatusNormalClosure, "")
	}
	return nil
}

// drain waits until every queued message was sent, the stream failed, or
// the write timeout passed.
func (s *wsStream) drain() {
	s.drainMu.Do(func() {
		select {
		case s.queue <- nil:
		case <-s.done:
			return
		default:
			return // queue full: nothing sensible to wait for
		}
		t := time.NewTimer(s.writeTimeout)
		defer t.Stop()
		select {
		case <-s.drained:
		case <-s.done:
		case <-t.C:
		}
	})
}

// pingLoop pings the client so a dead peer (no close, no FIN) ends its
// session instead of holding it forever.
func (s *wsStream) pingLoop(ctx context.Context, every time.Duration) {
	if every <= 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-t.C:
			pctx, cancel := context.WithTimeout(ctx, s.writeTimeout)
			err := s.c.Ping(pctx)
			cancel()
			if err != nil {
				if ctx.Err() == nil {
					s.fail(fmt.Errorf("%w: no answer to a ping within %s", ErrSlowClient, s.writeTimeout))
				}
				return
			}
		}
	}
}
