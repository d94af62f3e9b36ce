package restclient

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/restls/restls/config"
)

// hostile is text a shell would expand, split or end a quote on.
const hostile = "it's \"quoted\" $(echo pwned) `echo pwned` $HOME \\ ; | & > < * ? [a] {b,c} ~ ! # %20 \t tab"

// runCurl runs a call's curl command with the real curl under sh, the
// credential variables set to env, and returns what it printed.
func runCurl(t *testing.T, command string, env map[string]string) []byte {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("curl is not installed (.ci/run installs it)")
		}
		t.Skip("curl is not installed")
	}
	cmd := exec.Command("sh", "-c", command)
	cmd.Env = append(os.Environ(), "HOME=/nonexistent-home")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s\n%s", err, stderr.String(), command)
	}
	return out
}

// TestCurlReproducesTheRequest sends calls through restls to go-httpbin's
// /anything, runs each call's curl command with the real curl and the
// credentials in the variables it names, and compares go-httpbin's echo of
// both requests: method, URL (path and query), headers and body.
func TestCurlReproducesTheRequest(t *testing.T) {
	t.Parallel()
	bin := httpbinServer(t)
	a := newAuthServer(t, config.ClientSecretPost, nil)
	const basicCreds = "dXNlcjpiMW4tUGFzc3dvcmQ=" // user:b1n-Password
	reg := loadRegistry(t, config.ScriptService, servicesXML(
		api("open", bin.URL+"/anything", ""),
		api("crm.basic-v2", bin.URL+"/anything/crm", basicAuth(basicCreds)),
		api("docs", bin.URL+"/anything/docs", oauthRef("o")),
		oauthDef(a, config.GrantClientCredentials, config.ClientSecretPost, false),
	))
	s := New(Options{}).Session(reg)
	defer s.Close()
	multipart := []HeaderField{{Name: "Content-Type", Value: "multipart/form-data"}}
	for _, tc := range []struct {
		name string
		req  Request
		env  func() map[string]string
		vars []string
	}{
		{name: "basic auth, query needing escapes, hostile header",
			req: Request{ServiceID: "crm.basic-v2", Method: "GET", PathParams: []string{"a b", "ü/x", "it's"},
				Query:  []QueryParam{{Name: "q", Value: "a b&c=d+e"}, {Name: "sym", Value: "ü/?#%[]{}"}, {Name: "h", Value: hostile}, {Name: "q", Value: "again"}},
				Header: []HeaderField{{Name: "X-Note", Value: hostile}, {Name: "Accept", Value: "application/json"}}},
			env:  func() map[string]string { return map[string]string{"RESTLS_BASIC_CRM_BASIC_V2": basicCreds} },
			vars: []string{"RESTLS_BASIC_CRM_BASIC_V2"}},
		{name: "bearer token, JSON body",
			req: Request{ServiceID: "docs", Method: "POST", Body: json.RawMessage(`{"note":` + mustJSON(hostile+"\nsecond line\n'") + `,"n":1.50,"big":12345678901234567890,"list":[1,"two",null]}`)},
			env: func() map[string]string {
				issued := a.token.Issued()
				return map[string]string{"RESTLS_TOKEN_DOCS": issued[len(issued)-1]}
			},
			vars: []string{"RESTLS_TOKEN_DOCS"}},
		{name: "multipart",
			req: Request{ServiceID: "open", Method: "POST", Header: multipart,
				Body: json.RawMessage(`{"name":` + mustJSON(hostile) + `,"at":"@/etc/passwd","lt":"<file","semi":"v;type=text/html","n":3,"obj":{"k":[1]},"nl":"a\nb"}`)},
			env: func() map[string]string { return nil }},
		{name: "a large body, PUT, a key header",
			req: Request{ServiceID: "open", Method: "PUT", Header: []HeaderField{{Name: "X-Api-Key", Value: "k3y-" + hostile}},
				Body: json.RawMessage(`{"text":` + mustJSON(strings.Repeat("all work and no play ", 200)) + `}`)},
			env:  func() map[string]string { return map[string]string{"RESTLS_X_API_KEY_OPEN": "k3y-" + hostile} },
			vars: []string{"RESTLS_X_API_KEY_OPEN"}},
		{name: "delete, no body",
			req: Request{ServiceID: "open", Method: "DELETE", PathParams: []string{"x"}},
			env: func() map[string]string { return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, call, err := s.Do(t.Context(), &tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if call.CurlCommand() == "" {
				t.Fatal("no curl command")
			}
			for _, v := range tc.vars {
				if !strings.Contains(call.CurlCommand(), "# set "+v+" (") || !strings.Contains(call.CurlCommand(), "$"+v+`"`) {
					t.Errorf("the command does not name and use $%s:\n%s", v, call.CurlCommand())
				}
			}
			for v := range tc.env() {
				if val := tc.env()[v]; strings.Contains(call.CurlCommand(), val) {
					t.Errorf("the credential in %s appears in the command:\n%s", v, call.CurlCommand())
				}
			}
			want := decodeEcho(t, resp.Body)
			got := decodeEcho(t, runCurl(t, call.CurlCommand(), tc.env()))
			if tc.req.Header != nil && IsMultipart(tc.req.Header[0].Value) {
				// curl picks its own boundary, so the encoded body and
				// its length differ; the fields must not.
				for _, e := range []*echo{&want, &got} {
					boundary, ok := strings.CutPrefix(e.Headers["Content-Type"][0], "multipart/form-data; boundary=")
					if !ok {
						t.Fatalf("Content-Type %v", e.Headers["Content-Type"])
					}
					e.Data = strings.ReplaceAll(e.Data, boundary, "BOUNDARY")
					delete(e.Headers, "Content-Type")
					delete(e.Headers, "Content-Length")
				}
				if len(want.Form) != 7 {
					t.Errorf("restls sent the form %v", want.Form)
				}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("curl's request differs from restls's (-restls +curl):\n%s\n%s", d, call.CurlCommand())
			}
		})
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestCurlCommandText(t *testing.T) {
	t.Parallel()
	red := NewRedactor()
	red.Add("s3cret-in-body")
	h := http.Header{"Accept": {"application/json"}, "Authorization": {"Bearer tok-123456"}, "Content-Type": {"application/json"}, "X-Note": {"it's"}}
	got, ok := (&curlRequest{serviceID: "crm", auth: config.AuthOAuth, method: "POST", url: "https://crm.test/api?q=a%20b",
		header: h, body: []byte(`{"p":"s3cret-in-body"}`), red: red}).command()
	want := `# set RESTLS_TOKEN_CRM (an OAuth access token for crm)
# *** stands for a credential restls hides: put it back by hand
curl -sS --globoff --path-as-is --http1.1 -X POST 'https://crm.test/api?q=a%20b' \
  -H 'Accept: application/json' \
  -H "Authorization: Bearer $RESTLS_TOKEN_CRM" \
  -H 'Content-Type: application/json' \
  -H 'X-Note: it'\''s' \
  -H 'User-Agent: Go-http-client/1.1' \
  --compressed \
  -H 'Accept-Encoding: gzip' \
  --data-raw '{"p":"***"}'`
	if !ok || got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, ok := (&curlRequest{serviceID: "x", method: "POST", url: "http://x/", header: http.Header{},
		form: []MultipartField{{Name: "a", Value: "nul\x00"}}, red: red}).command(); ok {
		t.Error("a NUL in a form value must give no command")
	}
	for in, want := range map[string]string{"crm": "RESTLS_TOKEN_CRM", "crm-orders.v2": "RESTLS_TOKEN_CRM_ORDERS_V2", "Ünï": "RESTLS_TOKEN___N__"} {
		if got := EnvName("token", in); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestShellQuoteThroughSh hands hostile words to a real POSIX shell and
// checks it gives each back unchanged.
func TestShellQuoteThroughSh(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", "a b", "'", "''", "'\\''", hostile, "line1\nline2\n", "$(id)", "`id`", "${HOME}", "\\", "é ü 漢字", "\x01\x7f\xff", "-n", "--"} {
		if got := shEcho(t, s); got != s {
			t.Errorf("%q came back as %q (quoted %s)", s, got, ShellQuote(s))
		}
	}
}

func shEcho(t testing.TB, s string) string {
	t.Helper()
	out, err := exec.Command("sh", "-c", "printf '%s' "+ShellQuote(s)).Output()
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return string(out)
}

// FuzzShellQuote: whatever the text (NUL aside, which no shell argument
// can hold), sh reads the quoted word back as that text.
func FuzzShellQuote(f *testing.F) {
	for _, s := range []string{hostile, "'", strings.Repeat("'\"$`\\\n", 2000), strings.Repeat("a'", 10000), "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 {
			return
		}
		if got := shEcho(t, s); got != s {
			t.Errorf("%q came back as %q", s, got)
		}
	})
}

// curlArgs runs a curl command under sh with curl replaced by a function
// that prints its arguments, and returns them.
func curlArgs(t testing.TB, command string, env ...string) []string {
	t.Helper()
	cmd := exec.Command("sh", "-c", `curl() { for a in "$@"; do printf '%s\0' "$a"; done; }`+"\n"+command)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, command)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// checkCurlArgs builds the command for a request with a hostile header
// value, body or form field and checks that sh hands curl each exactly.
func checkCurlArgs(t testing.TB, value, body string) {
	if strings.IndexByte(value, 0) >= 0 || strings.IndexByte(body, 0) >= 0 {
		return
	}
	red := NewRedactor()
	for _, form := range []bool{false, true} {
		c := &curlRequest{serviceID: "s", method: "POST", url: "http://x/" + url.PathEscape(value),
			header: http.Header{"X-Note": {value}, "X-Api-Key": {value}}, red: red}
		if form {
			c.form = []MultipartField{{Name: "f", Value: body}}
		} else {
			c.body = []byte(body)
		}
		cmd, ok := c.command()
		if !ok {
			t.Fatalf("no command for %q %q", value, body)
		}
		checkNoRawControl(t, cmd)
		args := curlArgs(t, cmd, "RESTLS_X_API_KEY_S="+value)
		u := "http://x/" + url.PathEscape(value)
		want := []string{"-H", "X-Note: " + value, "-H", "X-Api-Key: " + value}
		if form {
			want = append(want, "--form-string", "f="+body)
		} else {
			want = append(want, "--data-raw", body)
		}
		for i := 0; i+1 < len(want); i += 2 {
			if !hasPair(args, want[i], want[i+1]) {
				t.Fatalf("curl does not get %s %q; args %q\n%s", want[i], want[i+1], args, cmd)
			}
		}
		if !slices.Contains(args, u) {
			t.Fatalf("curl does not get the URL %q: %q", u, args)
		}
	}
}

func hasPair(args []string, opt, val string) bool {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == opt && args[i+1] == val {
			return true
		}
	}
	return false
}

func TestCurlArgumentsSurviveTheShell(t *testing.T) {
	t.Parallel()
	for _, s := range []string{hostile, "'", "\"", "a\nb\n", "$(touch /tmp/restls-pwned)", "`id`", "\\'", "é漢\x01\x7f\xff", strings.Repeat("'\"$`\\", 500)} {
		checkCurlArgs(t, s, s)
	}
	if _, err := os.Stat("/tmp/restls-pwned"); err == nil {
		t.Fatal("the shell ran a command from a value")
	}
}

// FuzzCurlCommand: whatever a header value, body or form field holds
// (NUL aside), sh hands it to curl unchanged and runs nothing else.
func FuzzCurlCommand(f *testing.F) {
	f.Add(hostile, hostile+"\n'")
	f.Add(strings.Repeat("'", 5000), strings.Repeat(`{"a":[`, 2000)+strings.Repeat("]}", 2000))
	f.Add("", "")
	f.Fuzz(func(t *testing.T, value, body string) {
		checkCurlArgs(t, value, body)
	})
}

// checkNoRawControl fails unless every line of a curl command is one of
// its known kinds and no line holds a control character or invalid UTF-8:
// a newline inside a quoted literal or a comment would make another line.
func checkNoRawControl(t testing.TB, cmd string) {
	t.Helper()
	for i, l := range strings.Split(cmd, "\n") {
		if !utf8.ValidString(l) || strings.IndexFunc(l, unicode.IsControl) >= 0 {
			t.Fatalf("line %d holds a raw control character or invalid UTF-8: %q", i+1, l)
		}
		if !strings.HasPrefix(l, "# ") && !strings.HasPrefix(l, "restls_text_") && !strings.HasPrefix(l, "curl ") && !strings.HasPrefix(l, "  -") {
			t.Fatalf("line %d is not part of the command: %q\n%s", i+1, l, cmd)
		}
	}
}

// TestCurlExportRunsNothingInjected is issue 23's finding 10: the
// serviceId "ev\nil; touch /tmp/PWNED #" reached the comment lines of the
// export raw, so running the script ran touch. Whatever a serviceId,
// header name or value holds, the script run by a real shell runs curl
// only, with the arguments of the request.
func TestCurlExportRunsNothingInjected(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pwned := dir + "/PWNED"
	evil := "ev\nil; touch " + pwned + " #"
	red := NewRedactor()
	for _, c := range []*curlRequest{
		{serviceID: evil, auth: config.AuthBasic, method: "GET", url: "https://x.example.com/", header: http.Header{"Authorization": {"Basic dTpw"}}},
		{serviceID: evil, auth: config.AuthOAuth, method: "GET", url: "https://x.example.com/", header: http.Header{"Authorization": {"Bearer t"}}},
		{serviceID: evil, method: "POST", url: "https://x.example.com/", header: http.Header{"X-Api-Key": {"k"}, "X-Note": {"a\nb; touch " + pwned}},
			body: []byte("{\n  \"a\": \"\x1b]0;title\x07\"\n}\n")},
		{serviceID: "s\r\u0085\u009b", method: "POST", url: "https://x.example.com/", header: http.Header{"X-Api-Key\ntouch " + pwned: {"k"}}},
	} {
		c.red = red
		cmd, ok := c.command()
		if !ok {
			t.Fatalf("no command for %+v", c)
		}
		// A real shell in a directory of its own, curl replaced by a
		// function printing its arguments.
		sh := exec.Command("sh", "-c", `curl() { for a in "$@"; do printf '%s\0' "$a"; done; }`+"\n"+cmd)
		sh.Dir = dir
		sh.Env = []string{"PATH=" + os.Getenv("PATH")}
		out, err := sh.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %q\n%s", err, out, cmd)
		}
		if _, err := os.Stat(pwned); err == nil {
			t.Fatalf("running the export ran the injected command:\n%s", cmd)
		}
		checkNoRawControl(t, cmd)
		if !strings.Contains(cmd, `"ev\nil; touch `) && c.serviceID == evil {
			t.Errorf("the comment does not show the serviceId escaped:\n%s", cmd)
		}
		args := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if c.body != nil && !hasPair(args, "--data-raw", string(c.body)) {
			t.Errorf("curl does not get the body exactly: %q", args)
		}
		if v := c.header.Get("X-Note"); v != "" && !hasPair(args, "-H", "X-Note: "+v) {
			t.Errorf("curl does not get X-Note exactly: %q", args)
		}
	}
}

func TestEscapeControl(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain é 漢":              "plain é 漢",
		"two\nlines":             "two\nlines",
		"cr\rand\x1b[31mred\x07": `cr\rand\x1b[31mred\a`,
		"c1\u0085\u009b":         `c1\u0085\u009b`,
		"bad\xff":                `bad\xff`,
		"del\x7f":                `del\x7f`,
	} {
		if got := EscapeControl(in); got != want {
			t.Errorf("EscapeControl(%q) = %q, want %q", in, got, want)
		}
	}
}
