package runtime

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mccutchen/go-httpbin/v2/httpbin"

	"github.com/restls/restls/config"
	"github.com/restls/restls/internal/oauthtest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// secretSetup starts echo services and OAuth servers that do their best
// to hand credentials back, and returns the registry, the configured
// secrets and a function returning every token issued so far.
func secretSetup(t *testing.T) (reg *config.Registry, secrets []string, tokens func() []string) {
	const (
		basicCreds   = "dXNlcjpiMW4tUGFzc3dvcmQ=" // user:b1n-Password
		clientSecret = "cl1ent-S3cret-Value"
		password     = "us3r-Passw0rd-Value"
		gateway      = "Z2F0ZXdheTpnNHRld2F5LVBhc3M=" // gateway:g4teway-Pass
	)
	secrets = []string{basicCreds, "user:b1n-Password", "b1n-Password", clientSecret, password, gateway, "gateway:g4teway-Pass", "g4teway-Pass"}

	// An echo that answers 500 with the request headers in the body.
	mux := http.NewServeMux()
	mux.Handle("/", httpbin.New().Handler())
	mux.HandleFunc("/fail/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		_ = json.NewEncoder(w).Encode(r.Header)
	})
	echo := httptest.NewServer(mux)
	t.Cleanup(echo.Close)
	users := map[string]string{"svc": password}
	cc := oauthtest.New(t, oauthtest.Options{ClientID: "forms", Secret: clientSecret, Users: users, Gateway: gateway})
	pw := oauthtest.New(t, oauthtest.Options{ClientID: "forms", Secret: clientSecret, Users: users})
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"error":"invalid_client","error_description":"expected %s, got %s"}`, clientSecret, r.FormValue("client_secret"))
	}))
	t.Cleanup(broken.Close)

	reg = registryXML(t, fmt.Sprintf(`<scriptservice>
  <api serviceId="open" url="%[1]s/anything"/>
  <api serviceId="basic" url="%[1]s/anything"><authorization type="basic"><encodedCredentials>%[2]s</encodedCredentials></authorization></api>
  <api serviceId="basic-fail" url="%[1]s/fail"><authorization type="basic"><encodedCredentials>%[2]s</encodedCredentials></authorization></api>
  <api serviceId="cc" url="%[1]s/anything"><authorization type="oAuth"><id>cc</id></authorization></api>
  <api serviceId="pw" url="%[1]s/anything"><authorization type="oAuth"><id>pw</id></authorization></api>
  <api serviceId="pw-fail" url="%[1]s/fail"><authorization type="oAuth"><id>pw</id></authorization></api>
  <api serviceId="broken" url="%[1]s/anything"><authorization type="oAuth"><id>broken</id></authorization></api>
  <oAuth id="cc" url="%[3]s" grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientId="forms" clientSecret="%[4]s">
    <authorization type="basic"><encodedCredentials>%[6]s</encodedCredentials></authorization>
  </oAuth>
  <oAuth id="pw" url="%[5]s" grantType="password" clientAuthenticationMethod="client_secret_post" clientId="forms" clientSecret="%[4]s" username="svc" password="%[7]s"/>
  <oAuth id="broken" url="%[8]s" grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientId="forms" clientSecret="%[4]s"/>
</scriptservice>`, echo.URL, basicCreds, cc.URL, clientSecret, pw.URL, gateway, password, broken.URL))

	tokens = func() []string {
		return append(cc.Issued(), pw.Issued()...)
	}
	return reg, secrets, tokens
}

// secretScripts print, return and throw every credential they can reach.
var secretScripts = map[string]string{
	"everything": lines(
		`var out = {};`,
		`["basic", "cc", "pw"].forEach(function (id) {`,
		`  var r = api.rest.v1.post(id, {queryParams: {echo: "1"}}, {"Authorization": "Bearer hard-coded-Script-Token"}, {note: "hi"});`,
		`  console.log(id, r.body.headers.Authorization, r);`,
		`  console.error(JSON.stringify(r.body));`,
		`  out[id] = {auth: r.body.headers.Authorization[0], body: r.body, sawCreds: r.body.headers.Authorization[0].length > 20};`,
		`});`,
		`var o = api.rest.v1.get("open", {}, {"Authorization": "Bearer hard-coded-Script-Token"});`,
		`console.log(o.body.headers.Authorization[0]); out.open = o.body;`,
		`try { api.rest.v1.get("basic-fail", {}, {}); } catch (e) { console.warn("caught", e, e.body); out.failBody = e.body; }`,
		`try { api.rest.v1.get("broken", {}, {}); } catch (e) { console.warn("caught", e.message); out.tokenError = e.message; }`,
		`return out;`,
	),
	"throwsBody":    `api.rest.v1.get("pw-fail", {}, {});`,
	"throwsMessage": `var r = api.rest.v1.get("cc", {}, {}); throw new Error("got " + r.body.headers.Authorization[0]);`,
	"throwsToken":   `api.rest.v1.get("broken", {}, {});`,
}

// TestNoSecretInAnyOutput runs scripts that do their best to print
// credentials (echo services reflect every header into the body; the
// script logs, returns and throws what it got) and scans every output:
// the --json object, the preview, the zap log and the thrown errors.
func TestNoSecretInAnyOutput(t *testing.T) {
	reg, secrets, issued := secretSetup(t)
	scripts := secretScripts
	var outputs []string
	var everything string // the outputs of the script that shows credentials
	var logBuf bytes.Buffer
	logger := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewDevelopmentEncoderConfig()), zapcore.AddSync(&logBuf), zapcore.DebugLevel))
	for name, src := range scripts {
		res := Run(context.Background(), Options{Source: src, Filename: name + ".js", Registry: reg, Logger: logger})
		if name == "everything" {
			var got map[string]struct {
				SawCreds bool
			}
			_ = json.Unmarshal(res.Result, &got)
			if res.Error != nil || !got["basic"].SawCreds || !got["cc"].SawCreds || !got["pw"].SawCreds {
				t.Fatalf("the script did not see the credentials it must see: %+v %s", res.Error, res.Result)
			}
		} else if res.Error == nil {
			t.Fatalf("%s: expected an uncaught error", name)
		}
		j, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var p, v, c bytes.Buffer
		_ = WritePreview(&p, res, name+".js", PreviewOptions{})
		// The wire header blocks and whole bodies of -v --full, and the
		// curl commands.
		_ = WritePreview(&v, res, name+".js", PreviewOptions{Verbose: true, Full: true, Color: true})
		_ = WriteCurls(&c, res, name+".js")
		outputs = append(outputs, "json "+name+": "+string(j), "preview "+name+": "+p.String(),
			"verbose preview "+name+": "+v.String(), "curl "+name+": "+c.String())
		if name == "everything" {
			everything = string(j) + p.String() + v.String() + c.String()
		}
	}
	outputs = append(outputs, "log: "+logBuf.String())

	tokens := issued()
	if len(tokens) < 3 {
		t.Fatalf("only %d tokens issued", len(tokens))
	}
	all := append(append(secrets, tokens...), "hard-coded-Script-Token")
	for _, s := range all {
		for _, form := range []string{s, base64.StdEncoding.EncodeToString([]byte(s))} {
			for _, out := range outputs {
				if strings.Contains(out, form) {
					i := strings.Index(out, form)
					t.Errorf("%q leaks in %s ... %s ...", form, out[:strings.IndexByte(out, ':')], out[max(0, i-80):min(len(out), i+80)])
				}
			}
		}
	}
	// Map order is random: look for the mask in the outputs of the script
	// that must show masked values, not in whichever script ran first.
	if !strings.Contains(everything, "***") {
		t.Error("no masking visible in the outputs of the everything script")
	}
	for _, v := range []string{"$RESTLS_BASIC_BASIC", "$RESTLS_TOKEN_CC", "$RESTLS_TOKEN_PW", "$RESTLS_AUTHORIZATION_OPEN"} {
		if !strings.Contains(everything, v) {
			t.Errorf("the curl commands do not use %s", v)
		}
	}
	if !strings.Contains(everything, "> Authorization: Basic ***") || !strings.Contains(everything, "> Authorization: Bearer ***") {
		t.Error("no masked Authorization in the wire header blocks")
	}
}
