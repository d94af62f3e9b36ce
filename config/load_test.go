package config

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// memFiles is an in-memory file system for LoadWith.
type memFiles map[string]string

func (m memFiles) read(p string) ([]byte, error) {
	if s, ok := m[p]; ok {
		return []byte(s), nil
	}
	return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
}

// loadRoot loads files placed below config root "root".
func loadRoot(t *testing.T, files memFiles) *Snapshot {
	t.Helper()
	withRoot := memFiles{}
	for k, v := range files {
		withRoot["root/"+k] = v
	}
	return LoadWith(Sources{ConfigRoot: "root"}, withRoot.read)
}

const (
	yml = "application.yml"
	svc = "script-code-config/script-service-api.xml"
	hdl = "script-handler-config/script-handler-api.xml"
	plt = "config.xml"
)

func xmlDoc(body string) string { return "<scriptservice>\n" + body + "\n</scriptservice>\n" }

// findDiag returns the diagnostics with the given code.
func findDiag(r *Registry, code string) []Diagnostic {
	var out []Diagnostic
	for _, d := range r.Diagnostics {
		if d.Code == code {
			out = append(out, d)
		}
	}
	return out
}

func mustService(t *testing.T, r *Registry, id string) *Service {
	t.Helper()
	s, ok := r.Service(id)
	if !ok {
		t.Fatalf("service %q missing; have %v; diagnostics:\n%s", id, r.IDs(), dump(r.Diagnostics))
	}
	return s
}

func dump(ds []Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "  %s [%s]\n", d, d.Code)
	}
	return b.String()
}

func TestResolveURLs(t *testing.T) {
	snap := loadRoot(t, memFiles{
		yml: `
scriptservice:
  api:
    - serviceId: crm
      url: https://crm.example.com/api/v2/
      description: CRM
      authorization: {type: basic, encodedCredentials: dXNlcjpwYXNz}
    - serviceId: weather
      url: https://weather.example.com/v2?units=metric
`,
		svc: xmlDoc(`
  <api serviceId="orders" url="crm/orders" description="Orders"/>
  <api serviceId="deep" url="crm//a/b"/>
  <api serviceId="forecast" url="weather/forecast"/>`),
	})
	r := snap.For(ScriptService)
	tests := []struct{ id, url string }{
		{"crm", "https://crm.example.com/api/v2/"},
		{"orders", "https://crm.example.com/api/v2/orders"},
		{"deep", "https://crm.example.com/api/v2/a/b"},
		{"forecast", "https://weather.example.com/v2/forecast?units=metric"},
	}
	for _, tt := range tests {
		if got := mustService(t, r, tt.id).URL; got != tt.url {
			t.Errorf("%s: url %q, want %q", tt.id, got, tt.url)
		}
	}
	orders := mustService(t, r, "orders")
	if orders.Auth.Type != AuthNone {
		t.Errorf("authorization must not be inherited through a reference, got %q", orders.Auth.Type)
	}
	if orders.RefersTo != "crm" || orders.Description != "Orders" {
		t.Errorf("orders = %+v", orders)
	}
	if crm := mustService(t, r, "crm"); crm.Auth.Type != AuthBasic || crm.Auth.EncodedCredentials.Reveal() != "dXNlcjpwYXNz" {
		t.Errorf("crm auth = %+v", crm.Auth)
	}
	// orders and deep take crm's address without its credentials: an
	// information each, on the url (issue 33); forecast's base has none.
	var got []string
	for _, d := range r.Diagnostics {
		got = append(got, fmt.Sprintf("%d:%d %s %s %s", d.Line, d.RuneCol, d.Severity, d.Code, d.ServiceID))
		if !strings.Contains(d.Message, "not its basic authorization") || strings.Contains(d.Message, "dXNlcjpwYXNz") {
			t.Errorf("message %q", d.Message)
		}
	}
	want := []string{"3:3 info service-reference-no-auth orders", "4:3 info service-reference-no-auth deep"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("diagnostics %q, want %q:\n%s", got, want, dump(r.Diagnostics))
	}
}

// TestReferenceNoAuthRule: the rule asks for an authorization on the base
// and none on the reference; an oAuth base is named by its id.
func TestReferenceNoAuthRule(t *testing.T) {
	base := &Service{ID: "pay", Auth: Auth{Type: AuthOAuth, OAuthID: "pay-oauth"}}
	ref := &Service{ID: "refunds", RefersTo: "pay"}
	if msg := ReferenceDropsAuth(ref, base); !strings.Contains(msg, `oAuth "pay-oauth" authorization`) || !strings.Contains(msg, `give "refunds" an authorization`) {
		t.Errorf("message %q", msg)
	}
	for _, c := range []struct{ ref, base *Service }{
		{&Service{ID: "refunds", RefersTo: "pay", Auth: Auth{Type: AuthBasic}}, base},
		{ref, &Service{ID: "pay"}},
		{&Service{ID: "refunds"}, base},
		{ref, nil},
	} {
		if msg := ReferenceDropsAuth(c.ref, c.base); msg != "" {
			t.Errorf("%+v of %+v: %q, want none", c.ref, c.base, msg)
		}
	}
}

func TestLastWinsAndReferencesUseLatestSoFar(t *testing.T) {
	snap := loadRoot(t, memFiles{
		yml: `
scriptservice:
  api:
    - serviceId: b
      url: https://one.example.com
    - serviceId: a
      url: b/x
`,
		svc: xmlDoc(`  <api serviceId="b" url="https://two.example.com"/>
  <api serviceId="c" url="b/y"/>`),
	})
	r := snap.For(ScriptService)
	if got := mustService(t, r, "b").URL; got != "https://two.example.com" {
		t.Errorf("last definition must win: b = %q", got)
	}
	if got := mustService(t, r, "a").URL; got != "https://one.example.com/x" {
		t.Errorf("a resolves against b as read before it: %q", got)
	}
	if got := mustService(t, r, "c").URL; got != "https://two.example.com/y" {
		t.Errorf("c resolves against the latest b: %q", got)
	}
	dups := findDiag(r, CodeDuplicateService)
	if len(dups) != 1 || dups[0].Severity != SeverityWarning {
		t.Fatalf("want one duplicate warning, got:\n%s", dump(r.Diagnostics))
	}
	d := dups[0]
	if d.File != "root/"+svc || d.Line != 2 || !strings.Contains(d.Message, "root/application.yml:4:7") {
		t.Errorf("duplicate warning must name both places: %s", d)
	}
}

func TestRedefinitionReplacesUnusableAndUsable(t *testing.T) {
	snap := loadRoot(t, memFiles{svc: xmlDoc(`
  <api serviceId="x" url="nowhere/a"/>
  <api serviceId="x" url="https://ok.example.com"/>
  <api serviceId="y" url="https://ok.example.com"/>
  <api serviceId="y"/>`)})
	r := snap.For(ScriptService)
	if _, ok := r.Unusable("x"); ok {
		t.Error("x was redefined as usable; it must not stay unusable")
	}
	mustService(t, r, "x")
	if _, ok := r.Service("y"); ok {
		t.Error("y was redefined as unusable; the earlier usable entry must not survive")
	}
	if d, ok := r.Unusable("y"); !ok || d.Code != CodeMissingURL {
		t.Errorf("y unusable = %v %v", d, ok)
	}
}

func TestUnusableEntries(t *testing.T) {
	tests := []struct {
		name, xml, id, code, wantInMsg string
	}{
		{"missing url", `<api serviceId="s"/>`, "s", CodeMissingURL, "add url"},
		{"neither address nor reference", `<api serviceId="s" url="mail.example.com"/>`, "s", CodeBadURL, "neither"},
		{"bare reference", `<api serviceId="crm" url="https://crm.example.com"/><api serviceId="s" url="crm"/>`, "s", CodeBadURL, `"crm/<suffix>"`},
		{"url with credentials", `<api serviceId="s" url="https://u:p@host.example.com"/>`, "s", CodeBadURL, "authorization of type basic"},
		{"unknown reference", `<api serviceId="s" url="nothing/x"/>`, "s", CodeUnknownReference, "not defined"},
		{"reference to a later entry", `<api serviceId="s" url="later/x"/><api serviceId="later" url="https://l.example.com"/>`, "s", CodeUnknownReference, "defined only later, at root/" + svc + ":2"},
		{"chain", `<api serviceId="c" url="https://c.example.com"/><api serviceId="b" url="c/1"/><api serviceId="a" url="b/2"/>`, "a", CodeReferenceChain, "a -> b -> c"},
		{"reference to unusable", `<api serviceId="b" url="bad"/><api serviceId="a" url="b/2"/>`, "a", CodeBrokenReference, `"b", which is unusable`},
		{"auth without type", `<api serviceId="s" url="https://s.example.com"><authorization/></api>`, "s", CodeAuthMissingType, "set type"},
		{"unknown auth type", `<api serviceId="s" url="https://s.example.com"><authorization type="oauth2"><id>x</id></authorization></api>`, "s", CodeAuthUnknownType, `did you mean "oAuth"`},
		{"basic without credentials", `<api serviceId="s" url="https://s.example.com"><authorization type="basic"/></api>`, "s", CodeAuthMissingCreds, "encodedCredentials"},
		{"oAuth without id", `<api serviceId="s" url="https://s.example.com"><authorization type="oAuth"/></api>`, "s", CodeAuthMissingOAuth, "add an id"},
		{"oAuth id nobody defines", `<api serviceId="s" url="https://s.example.com"><authorization type="oAuth"><id>nope</id></authorization></api>`, "s", CodeAuthUnknownOAuth, "no oAuth element defines"},
		{"oAuth that is broken", `<api serviceId="s" url="https://s.example.com"><authorization type="oAuth"><id>o</id></authorization></api><oAuth id="o" url="https://t.example.com" grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientId="c"/>`, "s", CodeAuthBrokenOAuth, "it has no clientSecret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := loadRoot(t, memFiles{svc: xmlDoc(tt.xml)}).For(ScriptService)
			if _, ok := r.Service(tt.id); ok {
				t.Fatalf("%s must be unusable", tt.id)
			}
			d, ok := r.Unusable(tt.id)
			if !ok {
				t.Fatalf("%s: no unusable entry; diagnostics:\n%s", tt.id, dump(r.Diagnostics))
			}
			if d.Code != tt.code || d.Severity != SeverityError || d.ServiceID != tt.id {
				t.Errorf("got %s [%s %s], want code %s", d, d.Code, d.ServiceID, tt.code)
			}
			if !strings.Contains(d.Message, tt.wantInMsg) {
				t.Errorf("message %q lacks %q", d.Message, tt.wantInMsg)
			}
			if d.Line == 0 || d.RuneCol == 0 {
				t.Errorf("diagnostic without a position: %s", d)
			}
		})
	}
}

func TestMissingServiceIDIsAnError(t *testing.T) {
	r := loadRoot(t, memFiles{svc: xmlDoc(`<api url="https://x.example.com"/>`)}).For(ScriptService)
	if ds := findDiag(r, CodeMissingServiceID); len(ds) != 1 || ds[0].Severity != SeverityError {
		t.Fatalf("got:\n%s", dump(r.Diagnostics))
	}
	if r.Len() != 0 {
		t.Errorf("services = %v", r.IDs())
	}
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		name  string
		files memFiles
		code  string
		want  string
	}{
		{"plain http", memFiles{svc: xmlDoc(`<api serviceId="s" url="http://s.example.com"/>`)}, CodeInsecureURL, "HTTPS"},
		{"credentials not base64", memFiles{svc: xmlDoc(`<api serviceId="s" url="https://s.example.com"><authorization type="basic"><encodedCredentials>user:pass</encodedCredentials></authorization></api>`)}, CodeAuthBadCreds, "base64"},
		{"base64 without colon", memFiles{svc: xmlDoc(`<api serviceId="s" url="https://s.example.com"><authorization type="basic"><encodedCredentials>dXNlcnBhc3M=</encodedCredentials></authorization></api>`)}, CodeAuthBadCreds, "login:password"},
		{"unknown attribute", memFiles{svc: xmlDoc(`<api serviceId="s" url="https://s.example.com" descripton="x"/>`)}, CodeUnknownName, `did you mean "description"`},
		{"unknown element", memFiles{svc: xmlDoc(`<apis serviceId="s"/>`)}, CodeUnknownName, `did you mean "<api>"`},
		{"unknown yaml key", memFiles{yml: "scriptservice:\n  api:\n    - serviceId: s\n      url: https://s.example.com\n      descriptoin: x\n"}, CodeUnknownName, `did you mean "description"`},
		{"unknown auth child", memFiles{svc: xmlDoc(`<api serviceId="s" url="https://s.example.com"><authorization type="basic"><encodedCredential>dTpw</encodedCredential><encodedCredentials>dTpw</encodedCredentials></authorization></api>`)}, CodeUnknownName, `did you mean "<encodedCredentials>"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := loadRoot(t, tt.files).For(ScriptService)
			ds := findDiag(r, tt.code)
			if len(ds) != 1 {
				t.Fatalf("want one %s, got:\n%s", tt.code, dump(r.Diagnostics))
			}
			if ds[0].Severity != SeverityWarning || !strings.Contains(ds[0].Message, tt.want) {
				t.Errorf("got %s", ds[0])
			}
			if _, ok := r.Service("s"); !ok && tt.code != CodeUnknownName {
				t.Errorf("a warning must leave the service usable")
			}
		})
	}
}

const goodOAuth = `id="o" url="https://auth.example.com/token" grantType="client_credentials" clientAuthenticationMethod="client_secret_basic" clientId="cid" clientSecret="csecret"`

func TestOAuthDefinitions(t *testing.T) {
	use := `<api serviceId="s" url="https://s.example.com"><authorization type="oAuth"><id>o</id></authorization></api>`
	r := loadRoot(t, memFiles{svc: xmlDoc(use + `
  <oAuth ` + goodOAuth + ` description="Token">
    <authorization type="basic"><encodedCredentials>Z3c6cHc=</encodedCredentials></authorization>
    <additionalParams>
      <!-- a comment among the params -->
      <scope>read write</scope>
      <audience><![CDATA[api&co]]></audience>
      <resource>a &amp; b</resource>
    </additionalParams>
  </oAuth>`)}).For(ScriptService)
	s := mustService(t, r, "s")
	if s.Auth.Type != AuthOAuth || s.Auth.OAuthID != "o" || r.AuthSummary(s) != "oAuth client_credentials" {
		t.Fatalf("auth = %+v summary %q", s.Auth, r.AuthSummary(s))
	}
	o, ok := r.OAuth("o")
	if !ok {
		t.Fatalf("oAuth o missing:\n%s", dump(r.Diagnostics))
	}
	if o.ClientID != "cid" || o.ClientSecret.Reveal() != "csecret" || o.TokenBasicAuth.Reveal() != "Z3c6cHc=" || o.Description != "Token" {
		t.Errorf("oAuth = %+v", o)
	}
	var params []string
	for _, p := range o.AdditionalParams {
		params = append(params, p.Name+"="+p.Value.Reveal())
	}
	if got := strings.Join(params, ";"); got != "scope=read write;audience=api&co;resource=a & b" {
		t.Errorf("params = %q", got)
	}
	if len(r.Diagnostics) != 0 {
		t.Errorf("unexpected:\n%s", dump(r.Diagnostics))
	}
}

func TestOAuthValidation(t *testing.T) {
	tests := []struct {
		name, attrs, inner, code, want string
	}{
		{"no url", `id="o" grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientId="c" clientSecret="s"`, "", CodeOAuthMissingField, "no url"},
		{"bad url", `id="o" url="token" grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientId="c" clientSecret="s"`, "", CodeOAuthBadValue, "http(s)"},
		{"no grant", `id="o" url="https://a.example.com" clientAuthenticationMethod="client_secret_post" clientId="c" clientSecret="s"`, "", CodeOAuthMissingField, "no grantType"},
		{"bad grant", `id="o" url="https://a.example.com" grantType="client-credentials" clientAuthenticationMethod="client_secret_post" clientId="c" clientSecret="s"`, "", CodeOAuthBadValue, `did you mean "client_credentials"`},
		{"bad method", `id="o" url="https://a.example.com" grantType="client_credentials" clientAuthenticationMethod="basic" clientId="c" clientSecret="s"`, "", CodeOAuthBadValue, "clientAuthenticationMethod"},
		{"no client id", `id="o" url="https://a.example.com" grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientSecret="s"`, "", CodeOAuthMissingField, "no clientId"},
		{"no secret", `id="o" url="https://a.example.com" grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientId="c"`, "", CodeOAuthMissingField, "no clientSecret"},
		{"password grant without username", `id="o" url="https://a.example.com" grantType="password" clientAuthenticationMethod="client_secret_post" clientId="c" clientSecret="s" password="p"`, "", CodeOAuthMissingField, "no username"},
		{"password grant without password", `id="o" url="https://a.example.com" grantType="password" clientAuthenticationMethod="client_secret_post" clientId="c" clientSecret="s" username="u"`, "", CodeOAuthMissingField, "no password"},
		{"nested auth not basic", goodOAuth, `<authorization type="oAuth"><id>x</id></authorization>`, CodeAuthUnknownType, "only basic"},
		{"nested basic without credentials", goodOAuth, `<authorization type="basic"/>`, CodeAuthMissingCreds, "encodedCredentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := loadRoot(t, memFiles{svc: xmlDoc(`<oAuth ` + tt.attrs + `>` + tt.inner + `</oAuth>`)}).For(ScriptService)
			if _, ok := r.OAuth("o"); ok {
				t.Fatal("a broken oAuth definition must not be usable")
			}
			ds := findDiag(r, tt.code)
			if len(ds) != 1 || ds[0].OAuthID != "o" || ds[0].Severity != SeverityError || !strings.Contains(ds[0].Message, tt.want) {
				t.Fatalf("want one %s error naming o and %q, got:\n%s", tt.code, tt.want, dump(r.Diagnostics))
			}
		})
	}
	// Password grant complete: fine. client_credentials with username: warning, usable.
	r := loadRoot(t, memFiles{svc: xmlDoc(`<oAuth id="p" url="https://a.example.com" grantType="password" clientAuthenticationMethod="client_secret_post" clientId="c" clientSecret="s" username="u" password="pw"/>
<oAuth ` + goodOAuth + ` username="u"/>`)}).For(ScriptService)
	if p, ok := r.OAuth("p"); !ok || p.Username != "u" || p.Password.Reveal() != "pw" {
		t.Errorf("password grant: %+v %v\n%s", p, ok, dump(r.Diagnostics))
	}
	if _, ok := r.OAuth("o"); !ok || len(findDiag(r, CodeOAuthUnusedField)) != 1 {
		t.Errorf("username on client_credentials: want usable + one warning:\n%s", dump(r.Diagnostics))
	}
}

func TestPlatformTimeouts(t *testing.T) {
	wrap := func(inner string) string {
		return "<config>\n  <acme>\n    <restclient>\n" + inner + "\n    </restclient>\n  </acme>\n</config>\n"
	}
	tests := []struct {
		name  string
		file  string
		want  Timeouts
		codes int
	}{
		{"absent", "", DefaultTimeouts, 0},
		{"attributes", wrap(`<connection-timeout default="2000" maximum="5000"/><read-timeout default="3000" maximum="4000"/>`),
			Timeouts{TimeoutPair{2000, 5000}, TimeoutPair{3000, 4000}}, 0},
		{"child elements", wrap(`<read-timeout><default> 12000 </default><maximum>20000</maximum></read-timeout>`),
			Timeouts{DefaultTimeouts.Connection, TimeoutPair{12000, 20000}}, 0},
		{"only maximum", wrap(`<connection-timeout maximum="9000"/>`), Timeouts{TimeoutPair{1000, 9000}, DefaultTimeouts.Read}, 0},
		{"default above maximum", wrap(`<connection-timeout default="20000" maximum="10000"/>`), DefaultTimeouts, 1},
		{"only default above built-in maximum", wrap(`<read-timeout default="40000"/>`), DefaultTimeouts, 1},
		{"zero", wrap(`<read-timeout default="0" maximum="100"/>`), DefaultTimeouts, 1},
		{"negative", wrap(`<read-timeout default="-5"/>`), DefaultTimeouts, 1},
		{"not a number", wrap(`<connection-timeout><default>1s</default></connection-timeout>`), DefaultTimeouts, 1},
		{"other vendor name", "<config><other><restclient><read-timeout default=\"500\" maximum=\"600\"/></restclient></other></config>",
			Timeouts{DefaultTimeouts.Connection, TimeoutPair{500, 600}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := memFiles{}
			if tt.file != "" {
				files[plt] = tt.file
			}
			r := loadRoot(t, files).For(ScriptTask)
			if r.Timeouts != tt.want {
				t.Errorf("timeouts = %+v, want %+v", r.Timeouts, tt.want)
			}
			if got := len(findDiag(r, CodeTimeoutBad)); got != tt.codes {
				t.Errorf("%d timeout diagnostics, want %d:\n%s", got, tt.codes, dump(r.Diagnostics))
			}
		})
	}
}

func TestTwoRegistries(t *testing.T) {
	snap := loadRoot(t, memFiles{
		yml: "scriptservice:\n  api:\n    - serviceId: shared\n      url: https://shared.example.com\n",
		svc: xmlDoc(`<api serviceId="forScripts" url="shared/s"/>`),
		hdl: xmlDoc(`<api serviceId="forTasks" url="shared/t"/>`),
	})
	want := map[Kind][]string{
		ScriptService:    {"forScripts", "shared"},
		ValidationScript: {"forScripts", "shared"},
		ScriptTask:       {"forTasks", "shared"},
	}
	for k, ids := range want {
		if got := strings.Join(snap.For(k).IDs(), ","); got != strings.Join(ids, ",") {
			t.Errorf("%s: %s, want %v", k, got, ids)
		}
	}
}

func TestSyntaxErrorsHavePositions(t *testing.T) {
	tests := []struct {
		name      string
		files     memFiles
		file      string
		line, col int
	}{
		{"xml mismatched tag", memFiles{svc: "<scriptservice>\n  <api serviceId=\"a\" url=\"https://a.example.com\">\n  </apx>\n</scriptservice>"}, svc, 3, 8},
		{"xml unquoted attribute", memFiles{svc: "<scriptservice>\n<api serviceId=a/>\n</scriptservice>"}, svc, 2, 16},
		{"yaml bad indentation", memFiles{yml: "scriptservice:\n  api:\n    - serviceId: a\n   url: x\n"}, yml, 4, 4},
		{"yaml unclosed flow", memFiles{yml: "scriptservice:\n  api: [1, 2\nother: 3\n"}, yml, 3, 6},
		{"platform xml", memFiles{plt: "<config><a></config>"}, plt, 1, 20},
		{"xml ends early", memFiles{svc: "<scriptservice>\n  <api serviceId=\"a\"/>\n"}, svc, 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := loadRoot(t, tt.files).For(ScriptService)
			ds := findDiag(r, CodeSyntax)
			if len(ds) != 1 {
				t.Fatalf("want one syntax error, got:\n%s", dump(r.Diagnostics))
			}
			d := ds[0]
			if d.File != "root/"+tt.file || d.Line != tt.line || d.RuneCol != tt.col {
				t.Errorf("at %s, want %s:%d:%d (%s)", d.Position, tt.file, tt.line, tt.col, d.Message)
			}
		})
	}
}

func TestXMLPositionsSurviveCommentsAndCDATA(t *testing.T) {
	r := loadRoot(t, memFiles{svc: `<?xml version="1.0"?>
<!-- <api serviceId="commented" url="x"/> -->
<scriptservice>
  <![CDATA[ <api serviceId="cdata"/> ]]>
  <api serviceId="one"
       url="  https://one.example.com  "
       description="a &lt;b&gt; &amp; &#233;"/>
  <api serviceId="two" url="http://two.example.com"/>
</scriptservice>`}).For(ScriptService)
	one := mustService(t, r, "one")
	if one.URL != "https://one.example.com" || one.Description != "a <b> & é" {
		t.Errorf("one = %+v", one)
	}
	if one.Defined.Line != 5 || one.Defined.RuneCol != 3 {
		t.Errorf("one defined at %s, want line 5 col 3", one.Defined)
	}
	if d := findDiag(r, CodeInsecureURL); len(d) != 1 || d[0].Line != 8 {
		t.Errorf("http warning at the wrong place:\n%s", dump(r.Diagnostics))
	}
	if _, ok := r.Service("commented"); ok {
		t.Error("commented-out entries must be ignored")
	}
}

// Elements are matched to their scanned positions by number in document
// order; nested subtrees before an element must not shift its position.
func TestXMLPositionsAfterNestedElements(t *testing.T) {
	snap := loadRoot(t, memFiles{svc: `<scriptservice>
  <block><a><b/></a><c/></block>
  <oAuth id="o"><additionalParams><scope>x</scope></additionalParams> <bogus/></oAuth>
  <api serviceId="s" url="https://s.example.com">
    <authorization type="basic">
      <encodedCredential>dTpw</encodedCredential>
    </authorization>
  </api>
  <api serviceId="t" url="http://t.example.com"/>
</scriptservice>`,
		plt: `<config>
  <other><x><y/></x></other>
  <V><restclient>
    <connection-timeout default="abc" maximum="10"/>
    <read-timeout><default>5</default><maximum>zero</maximum></read-timeout>
  </restclient></V>
</config>`})
	r := snap.For(ScriptService)
	at := func(d Diagnostic) string { return fmt.Sprintf("%d:%d", d.Line, d.RuneCol) }
	var unknown []string
	for _, d := range findDiag(r, CodeUnknownName) {
		if strings.HasSuffix(d.File, svc) {
			unknown = append(unknown, at(d))
		}
	}
	// <block> at 2:3, <bogus/> at 3:71, <encodedCredential> at 6:7.
	if got := strings.Join(unknown, " "); got != "2:3 3:71 6:7" {
		t.Errorf("unknown names at %s, want 2:3 3:71 6:7:\n%s", got, dump(r.Diagnostics))
	}
	if d := mustService(t, r, "t").Defined; d.Line != 9 || d.RuneCol != 3 {
		t.Errorf("t defined at %s, want line 9 col 3", d)
	}
	var timeouts []string
	for _, d := range findDiag(r, CodeTimeoutBad) {
		timeouts = append(timeouts, at(d))
	}
	// connection-timeout's attribute at its element, 4:5; read-timeout's
	// <maximum> child at 5:39.
	if got := strings.Join(timeouts, " "); got != "4:5 5:39" {
		t.Errorf("timeout diagnostics at %s, want 4:5 5:39:\n%s", got, dump(r.Diagnostics))
	}
}

func TestWrongRoot(t *testing.T) {
	r := loadRoot(t, memFiles{svc: "<services><api serviceId=\"a\" url=\"https://a.example.com\"/></services>"}).For(ScriptService)
	if ds := findDiag(r, CodeBadRoot); len(ds) != 1 || !strings.Contains(ds[0].Message, "<scriptservice>") {
		t.Errorf("got:\n%s", dump(r.Diagnostics))
	}
	r = loadRoot(t, memFiles{svc: "  \n"}).For(ScriptService)
	if ds := findDiag(r, CodeBadRoot); len(ds) != 1 || ds[0].Line != 1 || ds[0].RuneCol != 1 {
		t.Errorf("an empty file has no root element, reported at 1:1; got:\n%s", dump(r.Diagnostics))
	}
}

func TestPropertiesForm(t *testing.T) {
	files := memFiles{"app.properties": `# comment
! another comment
server.port=8080
scriptservice.api[1].serviceId = orders
scriptservice.api[1].url: crm/orders
scriptservice.api[0].serviceId=crm
scriptservice.api[0].url=https://crm.example.com/\
    api/v2
scriptservice.api[0].description=Caf\u00e9 CRM
scriptservice.api[0].authorization.type=basic
scriptservice.api[0].authorization.encodedCredentials=dXNlcjpwYXNz
scriptservice.api[2].serviceId=pay
scriptservice.api[2].url=https://pay.example.com
scriptservice.api[2].authorization.type=oAuth
scriptservice.api[2].authorization.id=po
scriptservice.oAuth[0].id=po
scriptservice.oAuth[0].url=https://auth.example.com/token
scriptservice.oAuth[0].grantType=client_credentials
scriptservice.oAuth[0].clientAuthenticationMethod=client_secret_post
scriptservice.oAuth[0].clientId=c
scriptservice.oAuth[0].clientSecret=s
scriptservice.oAuth[0].additionalParams.scope=read
scriptservice.oAuth[0].additionalParams[audience]=api
scriptservice.api[3].srviceId=typo
scriptservice.apis[0].serviceId=wrong
`}
	snap := LoadWith(Sources{Properties: []string{"app.properties"}}, files.read)
	r := snap.For(ScriptService)
	crm := mustService(t, r, "crm")
	if crm.URL != "https://crm.example.com/api/v2" || crm.Description != "Café CRM" || crm.Auth.Type != AuthBasic {
		t.Errorf("crm = %+v", crm)
	}
	if crm.Defined.Line != 6 {
		t.Errorf("crm defined at %s, want the first line of index 0 (6)", crm.Defined)
	}
	if got := mustService(t, r, "orders").URL; got != "https://crm.example.com/api/v2/orders" {
		t.Errorf("index order: orders must come after crm, got %q", got)
	}
	if s := mustService(t, r, "pay"); s.Auth.OAuthID != "po" {
		t.Errorf("pay = %+v", s)
	}
	o, ok := r.OAuth("po")
	if !ok || len(o.AdditionalParams) != 2 || o.AdditionalParams[1].Name != "audience" {
		t.Errorf("oAuth from properties: %+v %v", o, ok)
	}
	if n := len(findDiag(r, CodeUnknownName)); n != 2 {
		t.Errorf("want 2 unknown-name warnings (srviceId, apis), got:\n%s", dump(r.Diagnostics))
	}
}

func TestSplitProperties(t *testing.T) {
	lines, bad := splitProperties("a=1\nb : 2\nc 3\nd\\=x=4\ne=5\\\n  6\\\\\nf=\\u0041\\t\\q\ng=\\u12\n   \n#x=1\n")
	var got []string
	for _, l := range lines {
		got = append(got, fmt.Sprintf("%s=%q@%d", l.key, l.value, l.line))
	}
	want := []string{`a="1"@1`, `b="2"@2`, `c="3"@3`, `d=x="4"@4`, `e="56\\"@5`, `f="A\tq"@7`, `g="u12"@8`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	if len(bad) != 1 || bad[0] != 8 {
		t.Errorf("bad escapes at %v, want [8]", bad)
	}
}

func TestYAMLVariants(t *testing.T) {
	files := memFiles{"a.yaml": `
other: {ignored: true}
scriptservice.api:
  - serviceId: flat
    url: https://flat.example.com
---
scriptservice:
  api:
    - {serviceId: second, url: flat/x}
  oAuth:
  unknownList: []
`, "b.yml": "scriptservice:\n  api:\n    - serviceId: third\n      url: second/y\n      description: ~\n"}
	r := LoadWith(Sources{Properties: []string{"a.yaml", "b.yml"}}, files.read).For(ScriptService)
	mustService(t, r, "flat")
	if got := mustService(t, r, "second").URL; got != "https://flat.example.com/x" {
		t.Errorf("second = %q", got)
	}
	if _, ok := r.Unusable("third"); !ok {
		t.Errorf("third refers to a reference: chain expected:\n%s", dump(r.Diagnostics))
	}
	if ds := findDiag(r, CodeUnknownName); len(ds) != 1 || !strings.Contains(ds[0].Message, "unknownList") {
		t.Errorf("got:\n%s", dump(r.Diagnostics))
	}
}

func TestYAMLShapeErrors(t *testing.T) {
	for _, src := range []string{
		"scriptservice: 5\n",
		"scriptservice:\n  api: {serviceId: a}\n",
		"scriptservice:\n  api:\n    - just a string\n",
		"scriptservice:\n  api:\n    - serviceId: [a, b]\n      url: https://x.example.com\n",
		"scriptservice:\n  api:\n    - serviceId: a\n      url: https://x.example.com\n      authorization: basic\n",
	} {
		r := LoadWith(Sources{Properties: []string{"p.yml"}}, memFiles{"p.yml": src}.read).For(ScriptService)
		var errs int
		for _, d := range r.Diagnostics {
			if d.Severity == SeverityError && d.Line > 0 {
				errs++
			}
		}
		if errs == 0 {
			t.Errorf("%q: want an error with a position, got:\n%s", src, dump(r.Diagnostics))
		}
	}
}

func TestSourcesResolution(t *testing.T) {
	t.Run("explicit missing file is an error", func(t *testing.T) {
		r := LoadWith(Sources{ServiceXML: "nope.xml"}, memFiles{}.read).For(ScriptService)
		if ds := findDiag(r, CodeFileNotFound); len(ds) != 1 || ds[0].File != "nope.xml" {
			t.Errorf("got:\n%s", dump(r.Diagnostics))
		}
		if r.Loaded {
			t.Error("nothing was read: Loaded must be false")
		}
	})
	t.Run("nothing found is one info", func(t *testing.T) {
		empty := t.TempDir()
		r := LoadWith(Sources{ConfigRoot: empty}, memFiles{}.read).For(ScriptService)
		if ds := findDiag(r, CodeNoConfiguration); len(r.Diagnostics) != 1 || len(ds) != 1 || ds[0].Severity != SeverityInfo ||
			!strings.Contains(ds[0].Message, filepath.Join(empty, svc)) || !strings.Contains(ds[0].Message, "restls init") {
			t.Errorf("got:\n%s", dump(r.Diagnostics))
		}
	})
	t.Run("a named root that is not there is an error", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "no-such-dir")
		file := filepath.Join(t.TempDir(), "application.yml")
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		for root, want := range map[string]string{missing: "does not exist", file: "is a file, not a directory"} {
			r := Load(Sources{ConfigRoot: root}).For(ScriptService)
			ds := findDiag(r, CodeRootNotFound)
			if len(r.Diagnostics) != 1 || len(ds) != 1 || ds[0].Severity != SeverityError || ds[0].File != root ||
				!strings.Contains(ds[0].Message, want) || r.Loaded {
				t.Errorf("%s: got:\n%s", root, dump(r.Diagnostics))
			}
			if err := (Sources{ConfigRoot: root}).CheckRoot(); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("CheckRoot(%s) = %v", root, err)
			}
		}
		if err := (Sources{}).CheckRoot(); err != nil {
			t.Errorf("no root named: %v", err)
		}
	})
	t.Run("no flags reads the current directory", func(t *testing.T) {
		files := memFiles{svc: xmlDoc(`<api serviceId="here" url="https://h.example.com"/>`)}
		r := LoadWith(Sources{}, files.read).For(ScriptService)
		mustService(t, r, "here")
	})
	t.Run("explicit files without root read nothing else", func(t *testing.T) {
		files := memFiles{
			"mine.xml": xmlDoc(`<api serviceId="mine" url="https://m.example.com"/>`),
			svc:        xmlDoc(`<api serviceId="cwd" url="https://c.example.com"/>`),
		}
		r := LoadWith(Sources{ServiceXML: "mine.xml"}, files.read).For(ScriptService)
		if got := strings.Join(r.IDs(), ","); got != "mine" {
			t.Errorf("ids = %s", got)
		}
	})
	t.Run("explicit file overrides the root's", func(t *testing.T) {
		files := memFiles{
			"mine.xml":    xmlDoc(`<api serviceId="mine" url="https://m.example.com"/>`),
			"root/" + svc: xmlDoc(`<api serviceId="rootsvc" url="https://r.example.com"/>`),
			"root/" + hdl: xmlDoc(`<api serviceId="task" url="https://t.example.com"/>`),
			"root/" + plt: `<config><v><restclient><read-timeout default="1" maximum="2"/></restclient></v></config>`,
		}
		snap := LoadWith(Sources{ConfigRoot: "root", ServiceXML: "mine.xml"}, files.read)
		if got := strings.Join(snap.For(ScriptService).IDs(), ","); got != "mine" {
			t.Errorf("scriptService ids = %s", got)
		}
		if got := strings.Join(snap.For(ScriptTask).IDs(), ","); got != "task" {
			t.Errorf("scriptTask ids = %s", got)
		}
		if snap.For(ScriptTask).Timeouts.Read.Maximum != 2 {
			t.Error("platform config from the root must be read")
		}
	})
	t.Run("environment", func(t *testing.T) {
		env := map[string]string{EnvConfigRoot: "r", EnvProperties: "a.yml:b.properties", EnvServiceXML: "s.xml", EnvHandlerXML: "h.xml", EnvPlatformConfig: "c.xml"}
		s := FromEnv(func(k string) string { return env[k] })
		want := Sources{ConfigRoot: "r", Properties: []string{"a.yml", "b.properties"}, ServiceXML: "s.xml", HandlerXML: "h.xml", PlatformConfig: "c.xml"}
		if fmt.Sprint(s) != fmt.Sprint(want) {
			t.Errorf("got %+v", s)
		}
		o := s.Override(Sources{Properties: []string{"x.yml"}, ServiceXML: "t.xml"})
		if o.ServiceXML != "t.xml" || strings.Join(o.Properties, ",") != "x.yml" || o.HandlerXML != "h.xml" {
			t.Errorf("override = %+v", o)
		}
	})
}

func TestSnapshotDiagnosticsDeduplicated(t *testing.T) {
	snap := loadRoot(t, memFiles{yml: "scriptservice:\n  api:\n    - serviceId: a\n      url: http://a.example.com\n"})
	if n := len(snap.Diagnostics()); n != 1 {
		t.Errorf("properties are read by all three kinds; the warning must appear once, got %d", n)
	}
}

func TestSecretNeverPrints(t *testing.T) {
	s := NewSecret("hunter2")
	type holder struct{ S Secret }
	for _, got := range []string{
		fmt.Sprint(s), fmt.Sprintf("%v %s %q %x %X %d %+v %#v", s, s, s, s, s, s, s, s),
		fmt.Sprintf("%+v %#v", holder{s}, holder{s}),
	} {
		if strings.Contains(got, "hunter2") || strings.Contains(got, fmt.Sprintf("%x", "hunter2")) {
			t.Errorf("secret leaked: %s", got)
		}
	}
	b, _ := NewSecret("hunter2").MarshalJSON()
	if strings.Contains(string(b), "hunter2") {
		t.Errorf("json leaked: %s", b)
	}
	if s.Reveal() != "hunter2" {
		t.Error("Reveal must return the value")
	}
}

func TestNearest(t *testing.T) {
	ids := []string{"crm", "crm-orders", "crm-customers", "geo", "payments"}
	if got := Nearest("crm-order", ids, 2); strings.Join(got, ",") != "crm-orders" {
		t.Errorf("got %v", got)
	}
	if got := Nearest("CRM", ids, 3); len(got) == 0 || got[0] != "crm" {
		t.Errorf("a name differing only in case is the best suggestion, got %v", got)
	}
	if got := Nearest("zzzzzzzz", ids, 3); len(got) != 0 {
		t.Errorf("far names are not suggested: %v", got)
	}
	if got := Nearest("paymnts", ids, 3); strings.Join(got, ",") != "payments" {
		t.Errorf("got %v", got)
	}
}
