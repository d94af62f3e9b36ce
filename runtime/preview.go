package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime/restclient"
)

// Preview limits: a body is cut after so many lines or bytes.
const (
	PreviewBodyLines = 40
	PreviewBodyBytes = 8 << 10
)

// PreviewOptions choose how WritePreview renders a run.
type PreviewOptions struct {
	// Color marks the parts of the preview with ANSI colours (see
	// ColorFor); the text is the same without.
	Color bool
	// Full prints whole bodies instead of cutting them at
	// PreviewBodyLines lines or PreviewBodyBytes bytes.
	Full bool
	// Verbose shows the request and response header blocks as they went
	// over the wire (restclient.Wire) instead of the script's view, and
	// each call's timing phases.
	Verbose bool
}

// ColorFor decides whether a preview is coloured. mode is "auto",
// "always" or "never"; auto colours a terminal unless NO_COLOR is set to
// a non-empty value (no-color.org), passed as noColor.
func ColorFor(mode string, terminal bool, noColor string) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		return terminal && noColor == "", nil
	}
	return false, fmt.Errorf("--color must be auto, always or never, got %q", mode)
}

// WritePreview prints a run for people: each call (method, serviceId, final
// URL, masked request headers, body, events, status, response headers and
// body pretty-printed and cut, duration) with console output where it
// happened, then the result or the uncaught error with its position, as
// o chooses.
func WritePreview(w io.Writer, res *Result, filename string, o PreviewOptions) error {
	// Every text shown comes from the script, its file name or a service:
	// paint, writeText and writeCaret escape control characters, and what
	// is written around them is escaped here.
	filename = input.Printable(filename)
	pv := &previewer{o: o, p: plainPalette}
	if o.Color {
		pv.p = ansiPalette
	}
	b := &pv.b
	p := pv.p
	logs := res.Logs
	printLogs := func(upTo int) {
		for len(logs) > 0 && logs[0].AfterCalls <= upTo {
			l := logs[0]
			logs = logs[1:]
			pos := ""
			if l.Line > 0 {
				pos = fmt.Sprintf(" (line %d)", l.Line)
			}
			fmt.Fprintf(b, "%s\n", p.log(l.Level, fmt.Sprintf("console.%s%s: %s", l.Level, pos, l.Message)))
		}
	}
	printLogs(0)
	for i, c := range res.Calls {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		pv.writeCall(i+1, c)
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
		fmt.Fprintf(b, "%s\n", p.paint(p.fail, fmt.Sprintf("uncaught error at %s: %s%s: %s", pos, e.Name, code, e.Message)))
		writeCaret(b, e.Line, e.Column, e.SourceLine)
		if len(e.Errors) > 1 {
			more := "1 more syntax error"
			if n := len(e.Errors) - 1; n > 1 {
				more = strconv.Itoa(n) + " more syntax errors"
			}
			if strings.HasPrefix(e.Code, "engine-") {
				// The engine profile's refusal lists every use beyond
				// the level; none follows from another.
				fmt.Fprintf(b, "  %s beyond the engine level:\n", strings.Replace(more, "syntax error", "use", 1))
			} else {
				fmt.Fprintf(b, "  %s (the later ones often follow from the first):\n", more)
			}
			for _, x := range e.Errors[1:] {
				fmt.Fprintf(b, "  %s:%d:%d: %s\n", filename, x.Line, x.Column, input.Printable(x.Message))
				writeCaret(b, x.Line, x.Column, x.SourceLine)
			}
		}
		if e.Status != nil {
			fmt.Fprintf(b, "  status: %d %s\n", e.Status.Code, input.Printable(e.Status.Message))
		}
		if e.Body != nil && *e.Body != "" {
			fmt.Fprintf(b, "  body:\n")
			pv.writeBody("    ", []byte(*e.Body))
		}
	} else {
		b.WriteString(p.paint(p.bold, "result:") + "\n")
		pv.writeBody("  ", res.Result)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// previewer renders one preview.
type previewer struct {
	b bytes.Buffer
	o PreviewOptions
	p palette
}

func (pv *previewer) writeCall(n int, c *restclient.Call) {
	b, p := &pv.b, pv.p
	url := c.URL
	if url == "" {
		url = "(no request sent)"
	}
	fmt.Fprintf(b, "%s\n", p.paint(p.bold, fmt.Sprintf("[%d] %s %s %s", n, c.Method, c.ServiceID, url)))
	wire := (*restclient.Wire)(nil)
	if pv.o.Verbose {
		wire = c.WireBlocks()
	}
	if wire != nil {
		for _, l := range wire.Request {
			fmt.Fprintf(b, "    %s\n", p.paint(p.request, "> "+l))
		}
	} else {
		for _, h := range c.RequestHeaders {
			fmt.Fprintf(b, "    %s\n", p.paint(p.request, "> "+h.Name+": "+h.Value))
		}
	}
	if len(c.RequestBody) > 0 {
		pv.writeBody("    > ", c.RequestBody)
	}
	for _, e := range c.Events {
		fmt.Fprintf(b, "    %s\n", p.paint(p.event, "~ "+e.Kind+": "+e.Message))
	}
	if c.Status != nil {
		fmt.Fprintf(b, "    %s (%s, %s)\n", p.paint(p.status(c.Status.Code), fmt.Sprintf("< %d %s", c.Status.Code, c.Status.Message)), ms(c.DurationMs), size(c.ResponseBytes))
		if pv.o.Verbose && c.Timing != nil {
			fmt.Fprintf(b, "    %s\n", p.paint(p.event, "~ timing: "+timingLine(c.Timing)))
		}
		if wire != nil {
			for _, l := range wire.Response[1:] {
				fmt.Fprintf(b, "    %s\n", p.paint(p.dim, "< "+l))
			}
		} else {
			for _, h := range c.ResponseHeaders {
				fmt.Fprintf(b, "    %s\n", p.paint(p.dim, "< "+h.Name+": "+h.Value))
			}
		}
		if len(c.ResponseBody) > 0 {
			if ct, ok := notJSON(c.ResponseHeaders); ok {
				// Shown as sent: pretty-printing would make a text body
				// that happens to parse look like the JSON api.rest.v1
				// expects.
				fmt.Fprintf(b, "    (Content-Type %s, not JSON: the body as sent)\n", input.Printable(ct))
				text := string(c.ResponseBody)
				var s string
				if json.Unmarshal(c.ResponseBody, &s) == nil {
					text = s // the trace holds a body that is not JSON as a JSON string
				}
				pv.writeText("    ", text)
			} else {
				pv.writeBody("    ", c.ResponseBody)
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
		fmt.Fprintf(b, "    %s (%s)\n", p.paint(p.fail, "! "+code+": "+c.ErrorMessage), ms(c.DurationMs))
	}
	for _, n := range c.Contract {
		fmt.Fprintf(b, "    %s\n", p.paint(p.warn, "? contract ("+n.Rule+"): "+n.Message))
	}
}

// timingLine names the phases a Timing holds, in the order they happen.
func timingLine(t *restclient.Timing) string {
	var parts []string
	for _, ph := range []struct {
		name string
		v    float64
	}{{"dns", t.DNSMs}, {"connect", t.ConnectMs}, {"tls", t.TLSMs}, {"first byte", t.TTFBMs}} {
		if ph.v > 0 {
			parts = append(parts, ph.name+" "+ms(ph.v))
		}
	}
	parts = append(parts, "total "+ms(t.TotalMs))
	line := strings.Join(parts, ", ")
	if t.Reused {
		line += " (reused connection)"
	}
	return line
}

// size formats a byte count in SI units, as HTTP tools do: 512 B, 1.2 kB,
// 3.4 MB.
func size(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10) + " B"
	case n < 999_950: // 999 950 would round to "1000.0 kB"
		return fmt.Sprintf("%.1f kB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
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
	fmt.Fprintf(b, "  %4s | %s\n", num, input.PrintableLines(src))
	// The caret stands under the column's character as shown: escapes
	// widen what comes before it.
	before, n := src, 0
	for i := range src {
		if n == col-1 {
			before = src[:i]
			break
		}
		n++
	}
	var pad strings.Builder
	for _, r := range input.PrintableLines(before) {
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
func (pv *previewer) writeBody(indent string, raw []byte) {
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
	pv.writeText(indent, text)
}

// writeText prints text indented, cut at PreviewBodyLines lines or
// PreviewBodyBytes bytes unless the options ask for whole bodies.
func (pv *previewer) writeText(indent, text string) {
	b := &pv.b
	cut := false
	if len(text) > PreviewBodyBytes && !pv.o.Full {
		text = strings.ToValidUTF8(text[:PreviewBodyBytes], "")
		cut = true
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	more := 0
	if len(lines) > PreviewBodyLines && !pv.o.Full {
		more = len(lines) - PreviewBodyLines
		lines = lines[:PreviewBodyLines]
	}
	for _, l := range lines {
		b.WriteString(indent)
		b.WriteString(input.PrintableLines(l))
		b.WriteByte('\n')
	}
	switch {
	case more > 0:
		fmt.Fprintf(b, "%s... %d more lines\n", indent, more)
	case cut:
		fmt.Fprintf(b, "%s... (cut at %d bytes)\n", indent, PreviewBodyBytes)
	}
}

// palette is every colour the preview uses, in one place: SGR codes, or
// empty strings for plain text.
type palette struct {
	bold, dim, request, event, ok, redirect, clientErr, serverErr, warn, fail, reset string
}

var (
	plainPalette = palette{}
	ansiPalette  = palette{
		bold:      "\x1b[1m",
		dim:       "\x1b[2m",
		request:   "\x1b[36m",   // cyan
		event:     "\x1b[35m",   // magenta
		ok:        "\x1b[32m",   // green
		redirect:  "\x1b[34m",   // blue
		clientErr: "\x1b[33m",   // yellow
		serverErr: "\x1b[31m",   // red
		warn:      "\x1b[33m",   // yellow
		fail:      "\x1b[1;31m", // bold red
		reset:     "\x1b[0m",
	}
)

// paint wraps s in code; plain text when code (or the palette) is empty.
// Control characters in s are escaped: only the palette's own codes reach
// the terminal.
func (p palette) paint(code, s string) string {
	s = input.PrintableLines(s)
	if code == "" {
		return s
	}
	return code + s + p.reset
}

// status is the colour of a status code's class.
func (p palette) status(code int) string {
	switch {
	case code >= 500:
		return p.serverErr
	case code >= 400:
		return p.clientErr
	case code >= 300:
		return p.redirect
	}
	return p.ok
}

// log paints a console line by its level.
func (p palette) log(level, s string) string {
	switch level {
	case "error":
		return p.paint(p.fail, s)
	case "warn":
		return p.paint(p.warn, s)
	case "debug":
		return p.paint(p.dim, s)
	}
	return p.paint("", s)
}

// WriteCurls prints the curl command of every call of a run (see
// restclient.Call.Curl), each after a comment naming the call, so that the
// output is a shell script: a call that was never sent is a comment
// saying why, and an uncaught error ends the script as a comment.
func WriteCurls(w io.Writer, res *Result, filename string) error {
	var b bytes.Buffer
	for i, c := range res.Calls {
		if i > 0 {
			b.WriteByte('\n')
		}
		url := c.URL
		if url == "" {
			url = "(no URL)"
		}
		writeComment(&b, fmt.Sprintf("[%d] %s %s %s", i+1, c.Method, c.ServiceID, url))
		curl := c.CurlCommand()
		if curl == "" {
			why := c.ErrorCode
			if why == "" {
				why = "the request could not be written as a shell command"
			}
			writeComment(&b, "not sent: "+why)
			continue
		}
		b.WriteString(curl)
		b.WriteByte('\n')
	}
	if e := res.Error; e != nil {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		pos := filename
		if e.Line > 0 {
			pos = fmt.Sprintf("%s:%d:%d", filename, e.Line, e.Column)
		}
		writeComment(&b, fmt.Sprintf("uncaught error at %s: %s: %s", pos, e.Name, e.Message))
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeComment writes text as shell comment lines, one a line of text,
// with every other control character escaped: a script's error message
// must not end the comment (a CR or escape sequence would not, but would
// still act on the terminal that shows it). Issue 23, finding 10.
func writeComment(b *bytes.Buffer, text string) {
	for _, l := range strings.Split(text, "\n") {
		b.WriteString("# ")
		b.WriteString(restclient.EscapeControl(strings.TrimRight(l, "\r")))
		b.WriteByte('\n')
	}
}
