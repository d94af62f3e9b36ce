package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/restls/restls/runtime/restclient"
)

// Preview limits: a body is cut after so many lines or bytes.
const (
	PreviewBodyLines = 40
	PreviewBodyBytes = 8 << 10
)

// WritePreview prints a run for people: each call (method, serviceId, final
// URL, masked request headers, body, events, status, response headers and
// body pretty-printed and cut, duration) with console output where it
// happened, then the result or the uncaught error with its position.
func WritePreview(w io.Writer, res *Result, filename string) error {
	var b bytes.Buffer
	logs := res.Logs
	printLogs := func(upTo int) {
		for len(logs) > 0 && logs[0].afterCalls <= upTo {
			l := logs[0]
			logs = logs[1:]
			pos := ""
			if l.Line > 0 {
				pos = fmt.Sprintf(" (line %d)", l.Line)
			}
			fmt.Fprintf(&b, "console.%s%s: %s\n", l.Level, pos, l.Message)
		}
	}
	printLogs(0)
	for i, c := range res.Calls {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		writeCall(&b, i+1, c)
		printLogs(i + 1)
	}
	printLogs(1 << 30)
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	if e := res.Error; e != nil {
		pos := filename
		if e.Line > 0 {
			pos = fmt.Sprintf("%s:%d:%d", filename, e.Line, e.Column)
		}
		code := ""
		if e.Code != "" {
			code = " [" + e.Code + "]"
		}
		fmt.Fprintf(&b, "uncaught error at %s: %s%s: %s\n", pos, e.Name, code, e.Message)
		writeCaret(&b, e.Line, e.Column, e.SourceLine)
		if len(e.Errors) > 1 {
			more := "1 more syntax error"
			if n := len(e.Errors) - 1; n > 1 {
				more = strconv.Itoa(n) + " more syntax errors"
			}
			fmt.Fprintf(&b, "  %s (the later ones often follow from the first):\n", more)
			for _, x := range e.Errors[1:] {
				fmt.Fprintf(&b, "  %s:%d:%d: %s\n", filename, x.Line, x.Column, x.Message)
				writeCaret(&b, x.Line, x.Column, x.SourceLine)
			}
		}
		if e.Status != nil {
			fmt.Fprintf(&b, "  status: %d %s\n", e.Status.Code, e.Status.Message)
		}
		if e.Body != nil && *e.Body != "" {
			fmt.Fprintf(&b, "  body:\n")
			writeBody(&b, "    ", []byte(*e.Body))
		}
	} else {
		b.WriteString("result:\n")
		writeBody(&b, "  ", res.Result)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeCall(b *bytes.Buffer, n int, c *restclient.Call) {
	url := c.URL
	if url == "" {
		url = "(no request sent)"
	}
	fmt.Fprintf(b, "[%d] %s %s %s\n", n, c.Method, c.ServiceID, url)
	for _, h := range c.RequestHeaders {
		fmt.Fprintf(b, "    > %s: %s\n", h.Name, h.Value)
	}
	if len(c.RequestBody) > 0 {
		writeBody(b, "    > ", c.RequestBody)
	}
	for _, e := range c.Events {
		fmt.Fprintf(b, "    ~ %s: %s\n", e.Kind, e.Message)
	}
	if c.Status != nil {
		fmt.Fprintf(b, "    < %d %s (%s)\n", c.Status.Code, c.Status.Message, ms(c.DurationMs))
		for _, h := range c.ResponseHeaders {
			fmt.Fprintf(b, "    < %s: %s\n", h.Name, h.Value)
		}
		if len(c.ResponseBody) > 0 {
			if ct, ok := notJSON(c.ResponseHeaders); ok {
				// Shown as sent: pretty-printing would make a text body
				// that happens to parse look like the JSON api.rest.v1
				// expects.
				fmt.Fprintf(b, "    (Content-Type %s, not JSON: the body as sent)\n", ct)
				text := string(c.ResponseBody)
				var s string
				if json.Unmarshal(c.ResponseBody, &s) == nil {
					text = s // the trace holds a body that is not JSON as a JSON string
				}
				writeText(b, "    ", text)
			} else {
				writeBody(b, "    ", c.ResponseBody)
			}
			if c.BodyTruncated {
				fmt.Fprintf(b, "    (body cut at %d bytes)\n", restclient.TraceBodyLimit)
			}
		}
	}
	if c.ErrorCode != "" || c.ErrorMessage != "" {
		code := c.ErrorCode
		if code == "" {
			code = "error"
		}
		fmt.Fprintf(b, "    ! %s: %s (%s)\n", code, c.ErrorMessage, ms(c.DurationMs))
	}
}

// writeCaret shows a source line with a caret under column col, as
// compilers do:
//
//	3 | var x = foo(;
//	  |             ^
func writeCaret(b *bytes.Buffer, line, col int, src string) {
	if line <= 0 || src == "" && col > 1 {
		return
	}
	num := strconv.Itoa(line)
	fmt.Fprintf(b, "  %4s | %s\n", num, src)
	var pad strings.Builder
	for i, r := range src {
		if i >= 0 && utf8.RuneCountInString(src[:i]) >= col-1 {
			break
		}
		if r == '\t' {
			pad.WriteByte('\t')
		} else {
			pad.WriteByte(' ')
		}
	}
	fmt.Fprintf(b, "  %4s | %s^\n", "", pad.String())
}

func ms(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.0f ms", v)
}

// notJSON reports a response whose Content-Type names something other
// than JSON (application/json or a +json type), and that type.
func notJSON(h restclient.Headers) (string, bool) {
	for _, f := range h {
		if !strings.EqualFold(f.Name, "Content-Type") {
			continue
		}
		mt, _, _ := strings.Cut(f.Value, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
		if mt == "" || mt == "application/json" || strings.HasSuffix(mt, "+json") {
			return "", false
		}
		return mt, true
	}
	return "", false
}

// writeBody pretty-prints JSON (a JSON string is shown as its text) and
// cuts it at PreviewBodyLines lines or PreviewBodyBytes bytes.
func writeBody(b *bytes.Buffer, indent string, raw []byte) {
	text := string(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		text = s
	} else {
		var out bytes.Buffer
		if json.Indent(&out, raw, "", "  ") == nil {
			text = out.String()
		}
	}
	writeText(b, indent, text)
}

// writeText prints text indented, cut at PreviewBodyLines lines or
// PreviewBodyBytes bytes.
func writeText(b *bytes.Buffer, indent, text string) {
	cut := false
	if len(text) > PreviewBodyBytes {
		text = strings.ToValidUTF8(text[:PreviewBodyBytes], "")
		cut = true
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	more := 0
	if len(lines) > PreviewBodyLines {
		more = len(lines) - PreviewBodyLines
		lines = lines[:PreviewBodyLines]
	}
	for _, l := range lines {
		b.WriteString(indent)
		b.WriteString(l)
		b.WriteByte('\n')
	}
	switch {
	case more > 0:
		fmt.Fprintf(b, "%s... %d more lines\n", indent, more)
	case cut:
		fmt.Fprintf(b, "%s... (cut at %d bytes)\n", indent, PreviewBodyBytes)
	}
}
