package restclient

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/restls/restls/config"
)

// curlRequest is a request as the client hands it to the transport: what
// a curl command needs to send the same bytes.
type curlRequest struct {
	serviceID string
	// auth is the authorization the client added to the request (the
	// Authorization header then holds a configured credential).
	auth   config.AuthType
	method string
	url    string
	header http.Header
	body   []byte
	// form, when not nil, holds the fields of a multipart body (body then
	// holds their encoding, whose boundary curl chooses itself).
	form []MultipartField
	// red hides what the Redactor knows as credentials in the rest.
	red *Redactor
}

// goUserAgent is what net/http sends when a request has no User-Agent.
const goUserAgent = "Go-http-client/1.1"

// EnvName returns the shell variable that holds credential what ("BASIC",
// "TOKEN", a header name) of serviceID: RESTLS_<WHAT>_<SERVICEID>, upper
// case, every character other than a letter or digit an underscore.
func EnvName(what, serviceID string) string {
	var b strings.Builder
	b.WriteString("RESTLS_")
	for _, s := range []string{what, "_", serviceID} {
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case 'a' <= c && c <= 'z':
				b.WriteByte(c - 'a' + 'A')
			case 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
				b.WriteByte(c)
			default:
				b.WriteByte('_')
			}
		}
	}
	return b.String()
}

// command returns a POSIX shell command line that makes curl send the
// request: a comment line naming the shell variables that stand for the
// credentials, then curl with one option per line. Every literal is
// single-quoted (a quote inside as '\”), so no header or body text is
// ever interpreted by the shell; credentials are variable references in
// double quotes, and any other text the Redactor knows as a credential is
// shown as ***. The second result is false when the request cannot be
// written as a shell argument (a NUL character).
func (c *curlRequest) command() (string, bool) {
	red := c.red
	var vars []string // "NAME (what it holds)"
	var args []string // each a shell word (or words), already quoted
	// texts assign the literals that hold control characters to shell
	// variables, before the curl line: no control character is ever
	// written raw, not even inside quotes (issue 23, finding 10).
	var texts []string
	masked := false
	lit := func(s string) string {
		r := red.String(s)
		masked = masked || r != s
		if !hasControl(r) {
			return ShellQuote(r)
		}
		name := fmt.Sprintf("restls_text_%d", len(texts)+1)
		texts = append(texts, assignEscaped(name, r))
		return `"$` + name + `"`
	}
	id := commentText(c.serviceID)

	args = append(args, "curl", "-sS", "--globoff", "--path-as-is")
	if strings.HasPrefix(c.url, "https:") {
		// The client speaks HTTP/1.1 only.
		args = append(args, "--http1.1")
	}
	switch c.method {
	case http.MethodGet:
	case http.MethodHead:
		args = append(args, "--head")
	default:
		args = append(args, "-X "+lit(c.method))
	}
	args = append(args, lit(c.url))
	first := len(args)

	names := make([]string, 0, len(c.header))
	for k := range c.header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if c.form != nil && strings.EqualFold(k, "Content-Type") {
			continue // curl writes its own boundary
		}
		for _, v := range c.header[k] {
			if strings.IndexByte(v, 0) >= 0 {
				return "", false
			}
			switch {
			case strings.EqualFold(k, "Authorization") && c.auth == config.AuthBasic && strings.HasPrefix(v, "Basic "):
				n := EnvName("BASIC", c.serviceID)
				vars = append(vars, n+" (the encodedCredentials of "+id+")")
				args = append(args, `-H "Authorization: Basic $`+n+`"`)
			case strings.EqualFold(k, "Authorization") && c.auth == config.AuthOAuth && strings.HasPrefix(v, "Bearer "):
				n := EnvName("TOKEN", c.serviceID)
				vars = append(vars, n+" (an OAuth access token for "+id+")")
				args = append(args, `-H "Authorization: Bearer $`+n+`"`)
			case sensitiveHeader(k):
				n := EnvName(k, c.serviceID)
				vars = append(vars, n+" (the "+commentText(k)+" header of "+id+")")
				args = append(args, "-H "+lit(k+": ")+`"$`+n+`"`)
			default:
				args = append(args, "-H "+lit(k+": "+v))
			}
		}
	}
	if _, ok := c.header["User-Agent"]; !ok {
		args = append(args, "-H "+lit("User-Agent: "+goUserAgent))
	}
	if _, ok := c.header["Accept-Encoding"]; !ok && c.method != http.MethodHead {
		// net/http asks for gzip and decompresses; so does curl with
		// --compressed, which keeps the header given.
		args = append(args, "--compressed", "-H "+lit("Accept-Encoding: gzip"))
	}
	if len(c.body) > 1024 {
		// curl would ask for 100-continue; net/http does not.
		args = append(args, "-H "+lit("Expect:"))
	}
	switch {
	case c.form != nil:
		for _, f := range c.form {
			if strings.IndexByte(f.Name, 0) >= 0 || strings.IndexByte(f.Value, 0) >= 0 {
				return "", false
			}
			// --form-string takes the value literally (-F would read a
			// file for a value starting with @ or <).
			args = append(args, "--form-string "+lit(f.Name+"="+f.Value))
		}
	case c.body != nil:
		if strings.IndexByte(string(c.body), 0) >= 0 {
			return "", false
		}
		// --data-raw sends the text as it is (no @file).
		args = append(args, "--data-raw "+lit(string(c.body)))
	}

	var b strings.Builder
	if len(vars) > 0 {
		b.WriteString("# set ")
		b.WriteString(strings.Join(vars, ", "))
		b.WriteByte('\n')
	}
	if masked {
		b.WriteString("# *** stands for a credential restls hides: put it back by hand\n")
	}
	for _, t := range texts {
		b.WriteString(t)
		b.WriteByte('\n')
	}
	// Method and URL on the first line, then one option a line.
	b.WriteString(strings.Join(args[:first], " "))
	for _, a := range args[first:] {
		b.WriteString(" \\\n  ")
		b.WriteString(a)
	}
	return b.String(), true
}

// ShellQuote returns s as one POSIX shell word: as it is when it holds
// only characters no shell treats specially, otherwise in single quotes,
// inside which only the single quote itself needs care ('\”).
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hasControl reports whether s holds a control character (C0, DEL, C1) or
// a byte that is not UTF-8, which a terminal could take for one.
func hasControl(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsControl(r) || r == utf8.RuneError && size == 1 {
			return true
		}
		i += size
	}
	return false
}

// assignEscaped returns a POSIX shell line setting variable name to s
// exactly, written with printf escapes so that the line holds no control
// character: every byte of a control character or of invalid UTF-8 as an
// octal escape. Command substitution drops trailing newlines, so a text
// ending in one is printed with a sentinel that is then removed.
func assignEscaped(name, s string) string {
	var b strings.Builder
	b.WriteString(name + "=$(printf '")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case i == 0 && r == '-':
			// printf would read a format starting with "-" as an option
			// (dash: "Illegal option"), and print nothing.
			b.WriteString(`\055`)
		case unicode.IsControl(r) || r == utf8.RuneError && size == 1:
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, "\\%03o", c)
			}
		case r == '\\':
			b.WriteString(`\\`)
		case r == '%':
			b.WriteString("%%")
		case r == '\'':
			b.WriteString(`'\''`)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	if strings.HasSuffix(s, "\n") {
		b.WriteString("x'); " + name + "=${" + name + "%x}")
	} else {
		b.WriteString("')")
	}
	return b.String()
}

// commentText is s for a shell comment: as it is when it holds no control
// character, otherwise Go-quoted with every such character escaped, so a
// newline in a serviceId cannot end the comment and start a command.
func commentText(s string) string {
	if !hasControl(s) {
		return s
	}
	return strconv.QuoteToGraphic(s)
}

// EscapeControl returns s with each control character (C0 but the line
// break, DEL, C1) and each byte that is not UTF-8 written as a Go escape
// (\r, \x1b, \u0085, \xff), for comment lines of a shell script that a
// terminal may also show: free text there (an error message, a file name)
// must not act on the terminal or the shell.
func EscapeControl(s string) string {
	if !hasControl(strings.ReplaceAll(s, "\n", "")) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			b.WriteByte('\n')
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
