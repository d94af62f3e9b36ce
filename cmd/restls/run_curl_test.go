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
