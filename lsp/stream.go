package lsp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// maxFrame caps the body a peer may declare. An LSP message for a script is a
// few megabytes at most; a larger declaration is read and thrown away.
const maxFrame = 64 << 20

// NewStream returns a jsonrpc2.Stream with the LSP base-protocol framing
// (Content-Length header, blank line, JSON body) that survives bad input:
// jsonrpc2's own header stream ends the connection on the first malformed
// frame, so an editor plug-in bug or a stray write to the server's stdin
// would kill every hint. This stream instead answers a body that is not a
// JSON-RPC message with a ParseError/InvalidRequest response (id null), skips
// a broken header block, and reads on. Only end of input or a read error ends
// it.
//
// Everything it writes is a complete frame, written with one Write call, so
// concurrent writers never interleave.
func NewStream(rwc io.ReadWriteCloser, log *zap.Logger) jsonrpc2.Stream {
	if log == nil {
		log = zap.NewNop()
	}
	s := &stream{rwc: rwc, in: bufio.NewReaderSize(rwc, 64<<10), log: log, wbuf: make([]byte, headerRoom, 4<<10)}
	s.answers.holds = true
	return s
}

type stream struct {
	rwc io.ReadWriteCloser
	in  *bufio.Reader
	log *zap.Logger

	writeMu sync.Mutex
	wbuf    []byte

	// answers holds completion answers until their response is written.
	answers answerRecycler
}

// Read implements jsonrpc2.Stream.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		length, hn, err := s.readHeader()
		if err != nil {
			return nil, 0, err
		}
		if length < 0 {
			s.log.Warn("skipped a malformed LSP header block")
			s.writeError(ctx, jsonrpc2.NewError(jsonrpc2.ParseError, "malformed header: expected Content-Length: <n> followed by a blank line"))
			continue
		}
		if length > maxFrame {
			if _, err := io.CopyN(io.Discard, s.in, int64(length)); err != nil {
				return nil, 0, unexpected(err)
			}
			s.log.Warn("discarded an oversized LSP frame", zap.Int("bytes", length))
			s.writeError(ctx, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "message of %d bytes exceeds the limit of %d", length, maxFrame))
			continue
		}
		// A fresh buffer per frame: requests released with jsonrpc2.Async keep
		// borrowing it, and a script text is held as a string copy anyway.
		body := make([]byte, length)
		if _, err := io.ReadFull(s.in, body); err != nil {
			return nil, 0, unexpected(err)
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			code := jsonrpc2.ParseError
			if json := bytes.TrimSpace(body); len(json) > 0 && (json[0] == '{' || json[0] == '[') && validJSON(json) {
				code = jsonrpc2.InvalidRequest
			}
			s.log.Warn("answered a malformed JSON-RPC message", zap.Error(err), zap.Int("bytes", length))
			s.writeError(ctx, jsonrpc2.Errorf(code, "malformed JSON-RPC message: %v", err))
			continue
		}
		if c, ok := msg.(*jsonrpc2.Call); ok {
			s.answers.arrived(c.ID())
		}
		return msg, int64(hn + length), nil
	}
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readHeader reads one header block. It returns length -1 for a block
// without a usable Content-Length; io.EOF only at a clean frame boundary.
func (s *stream) readHeader() (length, n int, err error) {
	length = -1
	lines := 0
	for {
		line, err := s.in.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// An absurdly long header line: drop it whole.
			for errors.Is(err, bufio.ErrBufferFull) {
				n += len(line)
				line, err = s.in.ReadSlice('\n')
			}
			n += len(line)
			lines++
			length = -2
			if err != nil {
				return 0, n, unexpected(err)
			}
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) && lines == 0 && len(line) == 0 {
				return 0, n, io.EOF
			}
			return 0, n, unexpected(err)
		}
		n += len(line)
		lines++
		trimmed := bytes.TrimRight(line, "\r\n")
		if len(trimmed) == 0 {
			if lines == 1 {
				// Stray blank lines between frames are harmless.
				lines = 0
				continue
			}
			if length < 0 {
				return -1, n, nil
			}
			return length, n, nil
		}
		// Resynchronise after garbage that ran into the next header: take the
		// header from where "Content-Length" starts.
		if i := indexFold(trimmed, "content-length:"); i > 0 {
			trimmed = trimmed[i:]
		}
		name, value, ok := bytes.Cut(trimmed, []byte(":"))
		if !ok {
			// Not a header field: garbage before the real header, skipped.
			continue
		}
		if bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			v, err := strconv.Atoi(string(bytes.TrimSpace(value)))
			if err != nil || v <= 0 {
				length = -2
				continue
			}
			length = v
		}
	}
}

// indexFold finds lower in b, ignoring ASCII case. It folds byte by byte:
// bytes.ToLower would turn invalid UTF-8 into U+FFFD, three bytes each, and
// the index it found would no longer point into b.
func indexFold(b []byte, lower string) int {
	for i := 0; i+len(lower) <= len(b); i++ {
		j := 0
		for j < len(lower) && asciiLower(b[i+j]) == lower[j] {
			j++
		}
		if j == len(lower) {
			return i
		}
	}
	return -1
}

func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func validJSON(b []byte) bool {
	var v any
	return jsonrpc2.DefaultCodec.Unmarshal(b, &v) == nil
}

// Write implements jsonrpc2.Stream. The message is encoded straight into
// the frame buffer, after room left for the header: encoding it on its own
// first would copy every completion answer once more. The stream's
// answerRecycler hears of every message written.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	buf := jsonrpc2.AppendMessage(s.wbuf[:headerRoom], msg)
	n, err := s.writeLocked(buf)
	s.answers.written(buf[headerRoom:])
	return n, err
}

// headerRoom is the room left before a body for its header:
// "Content-Length: ", up to 20 digits and the blank line.
const headerRoom = 40

func (s *stream) writeFrame(body []byte) (int64, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return s.writeLocked(append(s.wbuf[:headerRoom], body...))
}

// writeLocked writes the body in buf[headerRoom:] with its header in front;
// buf becomes the frame buffer unless it grew large.
func (s *stream) writeLocked(buf []byte) (int64, error) {
	var head [headerRoom]byte
	h := append(head[:0], "Content-Length: "...)
	h = strconv.AppendInt(h, int64(len(buf)-headerRoom), 10)
	h = append(h, "\r\n\r\n"...)
	start := headerRoom - len(h)
	copy(buf[start:], h)
	if cap(buf) <= 1<<20 {
		s.wbuf = buf
	}
	n, err := s.rwc.Write(buf[start:])
	return int64(n), err
}

// writeError answers a message that could not be read; the id is null
// because it could not be known.
func (s *stream) writeError(ctx context.Context, e *jsonrpc2.Error) {
	body, err := jsonrpc2.EncodeMessage(jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, e))
	if err != nil {
		return
	}
	if _, err := s.writeFrame(body); err != nil {
		s.log.Debug("could not answer a malformed message", zap.Error(err))
	}
}

// Close implements jsonrpc2.Stream. Answers still held are forgotten, not
// given back to the pool; see answerRecycler.close.
func (s *stream) Close() error {
	err := s.rwc.Close()
	s.answers.close()
	return err
}
