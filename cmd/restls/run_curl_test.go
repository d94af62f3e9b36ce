package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"github.com/mccutchen/go-httpbin/v2/httpbin"

	"github.com/restls/restls/internal/oauthtest"
)

// TestRunJSONCurlWithRealCurl runs a script through `restls run --json`
// against go-httpbin (basic auth, and a bearer token from a real go-oauth2
// server), runs each call's "curl" with the real curl and the credentials
// in the variables it names, and compares go-httpbin's echo of curl's
// request with its echo of restls's.
func TestRunJSONCurlWithRealCurl(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("curl is not installed (.ci/run installs it)")
		}
		t.Skip("curl is not installed")
	}
	const (
		basicCreds = "dXNlcjpiMW4tUGFzc3dvcmQ=" // user:b1n-Password
		secret     = "cl1ent-S3cret-Value"
	)
	bin := httptest.NewServer(httpbin.New().Handler())
	defer bin.Close()
	tok := oauthtest.New(t, oauthtest.Options{ClientID: "forms", Secret: secret})

	dir := t.TempDir()
	xml := writeFile(t, dir, "services.xml", fmt.Sprintf(`<scriptservice>
  <api serviceId="crm" url="%[1]s/anything/crm"><authorization type="basic"><encodedCredentials>%[2]s</encodedCredentials></authorization></api>
  <api serviceId="docs-v2" url="%[1]s/anything/docs"><authorization type="oAuth"><id>o</id></authorization></api>
  <oAuth id="o" url="%[3]s" grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientId="forms" clientSecret="%[4]s"/>
</scriptservice>`, bin.URL, basicCreds, tok.URL, secret))
	script := writeFile(t, dir, "s.js", `
var a = api.rest.v1.get("crm", {pathParams: ["it's $(x)"], queryParams: {q: "a b&c=d", u: "ü'\"`+"`"+`"}}, {"X-Note": "it's \"$(echo pwned)\""});
var b = api.rest.v1.post("docs-v2", {}, {}, {note: "line1\nit's $HOME", n: 1.50});
var c = api.rest.v1.post("crm", {}, {"Content-Type": "multipart/form-data"}, {name: "Ann's", file: "@/etc/passwd"});
return [a.status.code, b.status.code, c.status.code];`)
	out, errs, rc := run(t, nil, "run", "--json", "--service-xml", xml, script)
	if rc != 0 {
		t.Fatalf("rc %d, stderr %q\n%s", rc, errs, out)
	}
	var res struct {
		Calls []struct {
			ServiceID    string          `json:"serviceId"`
			Curl         string          `json:"curl"`
			ResponseBody json.RawMessage `json:"responseBody"`
			Timing       *struct {
				TotalMs float64 `json:"totalMs"`
			} `json:"timing"`
			Wire *struct {
				Request []string `json:"request"`
			} `json:"wire"`
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Calls) != 3 {
		t.Fatalf("%v\n%s", err, out)
	}
	token := ""
	if issued := tok.Issued(); len(issued) > 0 {
		token = issued[len(issued)-1]
	}
	env := []string{"RESTLS_BASIC_CRM=" + basicCreds, "RESTLS_TOKEN_DOCS_V2=" + token}
	for i, c := range res.Calls {
		// --json traces the calls: the phases and the header blocks as sent.
		if c.Timing == nil || c.Timing.TotalMs <= 0 || c.Wire == nil || len(c.Wire.Request) < 2 {
			t.Errorf("call %d: timing %+v, wire %+v", i, c.Timing, c.Wire)
		}
		if strings.Contains(c.Curl, basicCreds) || strings.Contains(c.Curl, token) || strings.Contains(c.Curl, secret) {
			t.Errorf("call %d: a credential in the command:\n%s", i, c.Curl)
		}
		cmd := exec.Command("sh", "-c", c.Curl)
		cmd.Env = append(os.Environ(), env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		got, err := cmd.Output()
		if err != nil {
			t.Fatalf("call %d: %v %s\n%s", i, err, stderr.String(), c.Curl)
		}
		// The trace shows the echoed credential as ***; so must curl's.
		got = bytes.ReplaceAll(bytes.ReplaceAll(got, []byte(basicCreds), []byte("***")), []byte(token), []byte("***"))
		want, have := echoOf(t, c.ResponseBody), echoOf(t, got)
		if i == 2 {
			// curl picks its own multipart boundary.
			for _, e := range []map[string]any{want, have} {
				for _, k := range []string{"Content-Type", "Content-Length"} {
					delete(e["headers"].(map[string]any), k)
				}
				delete(e, "data")
			}
		}
		if d := cmp.Diff(want, have); d != "" {
			t.Errorf("call %d (%s): curl's request differs (-restls +curl):\n%s\n%s", i, c.ServiceID, d, c.Curl)
		}
	}
}

func echoOf(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var e map[string]any
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("not an echo: %v\n%s", err, body)
	}
	return e
}

// TestRunCurlExportHoldsNoControlCharacter is issue 23's finding 10 through
// the binary: a form field holding newlines and a terminal escape, and
// a header holding a tab, reached the export raw (inside quotes, but raw). The
// curl field of restls run --json now holds no control character except
// its line breaks, and the script, run by a real shell in a directory of
// its own with the real curl, sends both byte for byte and runs nothing
// else.
func TestRunCurlExportHoldsNoControlCharacter(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("curl is not installed (.ci/run installs it)")
		}
		t.Skip("curl is not installed")
	}
	bin := httptest.NewServer(httpbin.New().Handler())
	defer bin.Close()
	dir := t.TempDir()
	xml := writeFile(t, dir, "services.xml", `<scriptservice><api serviceId="echo" url="`+bin.URL+`/anything"/></scriptservice>`)
	const (
		field  = "a\n; touch PWNED\n\x1b[31mred\x1b[0m\tok\n"
		header = "tab\there" // net/http refuses other control characters in headers
	)
	script := writeFile(t, dir, "s.js", `return api.rest.v1.post("echo", {}, {"Content-Type": "multipart/form-data", "X-Note": "tab\there"}, {note: "a\n; touch PWNED\n\u001b[31mred\u001b[0m\tok\n"}).status.code;`)
	out, err := restlsCommand(t, "run", "--json", "--service-xml", xml, script).Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var res struct{ Calls []struct{ Curl string } }
	if err := json.Unmarshal(out, &res); err != nil || len(res.Calls) != 1 {
		t.Fatalf("%v\n%s", err, out)
	}
	curl := res.Calls[0].Curl
	for i, l := range strings.Split(curl, "\n") {
		if strings.ContainsFunc(l, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			t.Errorf("line %d holds a control character: %q", i+1, l)
		}
	}
	work := t.TempDir()
	sh := exec.Command("sh", "-c", curl)
	sh.Dir = work
	got, err := sh.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, curl)
	}
	if _, err := os.Stat(work + "/PWNED"); err == nil {
		t.Fatalf("running the export ran a command from a form field:\n%s", curl)
	}
	echo := echoOf(t, got)
	if f := fmt.Sprint(echo["form"].(map[string]any)["note"]); f != "["+field+"]" {
		t.Errorf("curl sent the field %q, want %q\n%s", f, field, curl)
	}
	if h := fmt.Sprint(echo["headers"].(map[string]any)["X-Note"]); h != "["+header+"]" {
		t.Errorf("curl sent X-Note %q, want %q\n%s", h, header, curl)
	}

	// restls run --curl, saved and run as a script: the comment lines
	// carry the call and an uncaught error whose message the script wrote.
	script = writeFile(t, dir, "throws.js", `api.rest.v1.post("echo", {}, {"Content-Type": "multipart/form-data"}, {note: "a\nb"});
throw new Error("x\n; touch PWNED\r\u001b[31m\u0085end");`)
	text, _ := restlsCommand(t, "run", "--curl", "--live", "--service-xml", xml, script).Output()
	for i, l := range strings.Split(string(text), "\n") {
		if strings.ContainsFunc(l, unicode.IsControl) {
			t.Errorf("--curl line %d holds a control character: %q", i+1, l)
		}
	}
	if !strings.Contains(string(text), `# ; touch PWNED\r\x1b[31m\u0085end`) {
		t.Errorf("the error's lines are not comments with escapes:\n%s", text)
	}
	sh = exec.Command("sh", "-c", string(text))
	sh.Dir = work
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s\n%s", err, out, text)
	}
	if _, err := os.Stat(work + "/PWNED"); err == nil {
		t.Fatalf("running the --curl output ran a command from the error:\n%s", text)
	}
}
