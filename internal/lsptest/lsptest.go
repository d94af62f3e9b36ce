// Package lsptest holds test helpers shared by the tests of the language
// server's packages (lsp, cmd/restls). Only _test.go files import it.
//
// It imports no restls package, so any package's tests may use it.
package lsptest

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// Frames reads out as a sequence of complete Content-Length frames whose
// bodies are JSON-RPC messages and returns how many there are, or an error
// that says what is wrong where the first bad frame starts.
func Frames(out []byte) (int, error) {
	n := 0
	for len(out) > 0 {
		const prefix = "Content-Length: "
		if !bytes.HasPrefix(out, []byte(prefix)) {
			return n, fmt.Errorf("frame %d: non-protocol bytes: %q", n+1, head(out))
		}
		end := bytes.Index(out, []byte("\r\n\r\n"))
		if end < 0 {
			return n, fmt.Errorf("frame %d: header without blank line: %q", n+1, head(out))
		}
		length, err := strconv.Atoi(string(out[len(prefix):end]))
		if err != nil || length <= 0 {
			return n, fmt.Errorf("frame %d: bad Content-Length: %q", n+1, out[:end])
		}
		body := out[end+4:]
		if len(body) < length {
			return n, fmt.Errorf("frame %d: truncated: want %d bytes, have %d", n+1, length, len(body))
		}
		if _, err := jsonrpc2.DecodeMessage(body[:length]); err != nil {
			return n, fmt.Errorf("frame %d: body is not a JSON-RPC message: %v: %q", n+1, err, head(body[:length]))
		}
		out = body[length:]
		n++
	}
	return n, nil
}

// CheckFrames fails t unless out is only complete LSP frames holding
// JSON-RPC messages (see Frames), and returns how many there were.
func CheckFrames(t testing.TB, out []byte) int {
	t.Helper()
	n, err := Frames(out)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func head(b []byte) []byte {
	if len(b) > 300 {
		return b[:300]
	}
	return b
}
