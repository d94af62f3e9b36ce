package curlin

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/restls/restls/config"
	_ "github.com/restls/restls/internal/goldentest" // defines -update (internal/goldentest/doc.go)
)

// testServicesXML configures basic, OAuth and unauthenticated services,
// one defined by reference and one whose url has a query.
const testServicesXML = `<scriptservice>
  <api serviceId="crm" url="https://crm.example.com/api/v2"><authorization type="basic"><encodedCredentials>dXNlcjpwYXNz</encodedCredentials></authorization></api>
  <api serviceId="crm-customers" url="crm/customers"><authorization type="basic"><encodedCredentials>dXNlcjpwYXNz</encodedCredentials></authorization></api>
  <api serviceId="docs" url="https://docs.example.com"/>
  <api serviceId="docs-copy" url="https://docs.example.com/"/>
  <api serviceId="search" url="https://search.example.com/v1?apiVersion=3"/>
  <api serviceId="search-plain" url="https://search.example.com/v1"/>
  <api serviceId="pay" url="http://pay.example.com:8080/api"><authorization type="oAuth"><id>pay</id></authorization></api>
  <oAuth id="pay" url="https://auth.example.com/token" grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientId="c" clientSecret="s3cret-value"/>
</scriptservice>`

func testRegistry(t testing.TB, xml string) *config.Registry {
	t.Helper()
	read := func(p string) ([]byte, error) {
		if p == "/cfg/services.xml" {
			return []byte(xml), nil
		}
		return nil, fs.ErrNotExist
	}
	reg := config.LoadWith(config.Sources{ServiceXML: "/cfg/services.xml", HandlerXML: "/cfg/services.xml"}, read).For(config.ScriptService)
	for _, d := range reg.Diagnostics {
		if d.Severity == config.SeverityError {
			t.Fatalf("config: %s", d)
		}
	}
	return reg
}

func TestFromCurl(t *testing.T) {
	reg := testRegistry(t, testServicesXML)
	for _, tc := range []struct {
		name, curl, want string
		notes            []string // substrings, one per note, in order
	}{
		{"get by prefix", `curl https://crm.example.com/api/v2/orders/42`,
			`api.rest.v1.get("crm", {pathParams: ["orders", "42"]}, {});`, nil},
		{"longest prefix wins", `curl 'https://crm.example.com/api/v2/customers/7?expand=orders&q=a%20b'`,
			`api.rest.v1.get("crm-customers", {pathParams: ["7"], queryParams: {expand: "orders", q: "a b"}}, {});`, nil},
		{"segment boundary", `curl https://crm.example.com/api/v2/customersX`,
			`api.rest.v1.get("crm", {pathParams: ["customersX"]}, {});`, nil},
		{"escaped segment stays one", `curl https://docs.example.com/a%2Fb/c`,
			`api.rest.v1.get("docs", {pathParams: ["a/b", "c"]}, {});`, []string{"docs-copy"}},
		{"url query is a longer prefix", `curl 'https://search.example.com/v1/find?apiVersion=3&q=x'`,
			`api.rest.v1.get("search", {pathParams: ["find"], queryParams: {q: "x"}}, {});`, nil},
		{"post json, browser style", `curl 'https://crm.example.com/api/v2/orders' \
  -H 'accept: application/json' \
  -H 'content-type: application/json' \
  -H 'origin: https://app.example.com' \
  -H 'sec-fetch-mode: cors' \
  -H 'X-Request-Id: r-1' \
  -H 'Authorization: Basic Zm9vOmJhcg==' \
  --data-raw $'{"name":"Ada \'L\'","tags":["a"],"n":1.50}' \
  --compressed`,
			`api.rest.v1.post("crm", {pathParams: ["orders"]}, {"X-Request-Id": "r-1"}, {name: "Ada 'L'", tags: ["a"], n: 1.50});`,
			[]string{`Authorization header is left out: serviceId "crm" has basic authorization`, "origin, sec-fetch-mode"}},
		{"put with -X and --json", `curl -X PUT --json '{"a":{"b":[1,2,{"c":null}]}}' https://docs.example.com/page/1`,
			`api.rest.v1.put("docs", {pathParams: ["page", "1"]}, {}, {a: {b: [1, 2, {c: null}]}});`, []string{"docs-copy"}},
		{"clustered short options", `curl -sSLXPATCH -HX-Trace:1 -d'{}' http://pay.example.com:8080/api/items/9`,
			`api.rest.v1.patch("pay", {pathParams: ["items", "9"]}, {"X-Trace": "1"}, {});`, []string{"cannot express (the configuration or the platform decides): -L."}},
		{"default port matches", `curl -XDELETE https://docs.example.com:443/x --url-query 'a=1'`,
			``, nil},
		{"form fields", `curl -F 'name=Ada' --form-string 'note=@not-a-file' https://docs.example.com/upload`,
			`api.rest.v1.post("docs", {pathParams: ["upload"]}, {"Content-Type": "multipart/form-data"}, {name: "Ada", note: "@not-a-file"});`, []string{"docs-copy"}},
		{"urlencoded form", `curl -d 'a=1' -d 'b=x%20y' https://docs.example.com/f`,
			`api.rest.v1.post("docs", {pathParams: ["f"]}, {}, {a: "1", b: "x y"});`, []string{"docs-copy", "urlencoded form"}},
		{"-G puts data in the query", `curl -G -d 'q=a b' --data-urlencode 'r=c&d' https://docs.example.com/s`,
			`api.rest.v1.get("docs", {pathParams: ["s"], queryParams: {q: "a b", r: "c&d"}}, {});`, []string{"docs-copy"}},
		{"-u without configured auth", `curl -u ada:pw https://docs.example.com/`,
			`api.rest.v1.get("docs", {}, {Authorization: "Basic YWRhOnB3"});`, []string{"docs-copy", "hard-coded credential"}},
		{"credentials in the URL", `curl https://ada:p%40ss@docs.example.com/x`,
			`api.rest.v1.get("docs", {pathParams: ["x"]}, {Authorization: "Basic YWRhOnBAc3M="});`, []string{"docs-copy", "The credentials in the URL are kept as written"}},
		{"-u with configured oauth", `curl -u ada:pw http://pay.example.com:8080/api`,
			`api.rest.v1.get("pay", {}, {});`, []string{`-u credentials are left out: serviceId "pay" has oAuth client_credentials authorization`}},
		{"trailing slash and variables", `TOKEN=abc; curl -H "X-Key: $KEY" -H "X-Tok: $TOKEN" https://crm.example.com/api/v2/a/`,
			`api.rest.v1.get("crm", {pathParams: ["a"]}, {"X-Key": "$KEY", "X-Tok": "abc"});`, []string{"trailing slash", "$KEY is a shell variable"}},
		{"pipe and comment", "# list\ncurl https://crm.example.com/api/v2 | jq .",
			`api.rest.v1.get("crm", {}, {});`, nil},
		{"long payload is indented", `curl --data-raw '{"customer":{"name":"Ada Lovelace","email":"ada@example.com"},"items":[]}' https://crm.example.com/api/v2/orders`,
			"api.rest.v1.post(\"crm\", {pathParams: [\"orders\"]}, {}, {\n  customer: {\n    name: \"Ada Lovelace\",\n    email: \"ada@example.com\"\n  },\n  items: []\n});", nil},
		{"odd keys are quoted", `curl --json '{"a-b":1,"":2,"$x":3,"é":4}' https://crm.example.com/api/v2`,
			`api.rest.v1.post("crm", {}, {}, {"a-b": 1, "": 2, $x: 3, "é": 4});`, nil},
		{"repeated query name", `curl 'https://crm.example.com/api/v2?a=1&a=2'`,
			`api.rest.v1.get("crm", {queryParams: {a: "2"}}, {});`, []string{"given more than once"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			call, err := FromCurl(tc.curl, reg)
			if tc.want == "" {
				// Only that it converts (the default port case).
				if err != nil || call.ServiceID != "docs" || call.Function != "delete" || call.Query[0] != (Param{"a", "1"}) {
					t.Fatalf("%+v, %v", call, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := call.Text(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if len(call.Notes) != len(tc.notes) {
				t.Fatalf("notes %q, want %d matching %q", call.Notes, len(tc.notes), tc.notes)
			}
			for i, n := range tc.notes {
				if !strings.Contains(call.Notes[i], n) {
					t.Errorf("note %d = %q, want it to hold %q", i, call.Notes[i], n)
				}
			}
		})
	}
}

func TestFromCurlErrors(t *testing.T) {
	reg := testRegistry(t, testServicesXML)
	for _, tc := range []struct{ name, curl, want string }{
		{"no service", `curl https://other.example.com/api/v3/items?x=1`, "configure one with url https://other.example.com/api/v3"},
		{"same host, other path", `curl https://crm.example.com/v1/x`, "on the same host: crm (https://crm.example.com/api/v2)"},
		{"scheme differs", `curl http://crm.example.com/api/v2`, "no serviceId configured for scriptService"},
		{"not curl", `wget https://crm.example.com`, "no curl command found"},
		{"two commands", "curl https://crm.example.com/api/v2\ncurl https://docs.example.com", "a second curl command"},
		{"command substitution", `curl -H "X: $(cat /etc/passwd)" https://docs.example.com`, "command substitution"},
		{"shell syntax", `curl 'https://docs.example.com`, "not a shell command line"},
		{"head", `curl -I https://docs.example.com`, "sends HEAD"},
		{"data file", `curl -d @body.json https://docs.example.com`, "reads the file body.json"},
		{"form file", `curl -F 'f=@x.png' https://docs.example.com`, "reads the file x.png"},
		{"text body", `curl -H 'Content-Type: text/plain' -d 'hello' https://docs.example.com`, "not JSON"},
		{"missing value", `curl https://docs.example.com -H`, "needs a value"},
		{"no url", `curl -s`, "has no URL"},
		{"ftp", `curl ftp://u:s3cret@docs.example.com/x`, "ftp://u:xxxxx@docs.example.com/x is not an http or https address"},
		{"unreadable url", `curl 'https://u:s3cret@docs.example.com:port/'`, "the URL cannot be read"},
		{"dot segment", `curl https://docs.example.com/a/../b`, `segment ".."`},
		{"too deep", "curl " + strings.Repeat("(", MaxNesting+1), "nests"},
		{"long pipeline", "curl https://docs.example.com" + strings.Repeat("|a", (MaxInputBytes-100)/2), "at most 1000 are read"},
		{"long and list", "curl https://docs.example.com" + strings.Repeat(" && a", (MaxInputBytes-100)/5), "pipe or list operators"},
		{"long or list", "curl https://docs.example.com" + strings.Repeat("||a", MaxOperators+1), "pipe or list operators"},
		{"long test", "curl https://docs.example.com; [[ a" + strings.Repeat(" && a", (MaxInputBytes-100)/5) + " ]]", "pipe or list operators"},
		{"deep if", "curl https://docs.example.com; " + strings.Repeat("if ", 60000) + "a" + strings.Repeat("; then :; fi", 60000), "shell keywords that open a compound command"},
		{"deep while", strings.Repeat("while ", MaxCompound+1) + "curl https://docs.example.com", "at most 1000 are read"},
		{"replacing expansion", `X=aaaa; curl -d "${X//a/$X$X}" https://docs.example.com`, "parameter expansion restls does not evaluate"},
		{"arithmetic", `curl https://docs.example.com/$((1<<40))`, "shell expansion restls does not evaluate"},
		{"brace explosion", "curl https://docs.example.com/" + strings.Repeat("{a,b}", 25), "expands to more than"},
		{"doubling variables", "X=" + strings.Repeat("x", 1000) + "\n" + doubling(12) + "curl https://docs.example.com/$X", "expands to more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FromCurl(tc.curl, reg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to hold %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}
	var nse *NoServiceError
	if _, err := FromCurl(`curl https://x.example.com/a`, reg); !errors.As(err, &nse) || nse.Suggest != "https://x.example.com" {
		t.Errorf("err %v: want a *NoServiceError suggesting https://x.example.com", err)
	}
	if _, err := FromCurl(strings.Repeat(" ", MaxInputBytes+1), reg); err == nil {
		t.Error("an input over MaxInputBytes must be refused")
	}
}

// TestTreeDepthIsChecked: a tree deeper than maxTreeDepth, however it
// was made, is refused by the first walk, which stops descending there
// (a recursive walk of it all would overflow the stack).
func TestTreeDepthIsChecked(t *testing.T) {
	f, err := syntax.NewParser().Parse(strings.NewReader("curl https://docs.example.com"), "")
	if err != nil {
		t.Fatal(err)
	}
	s := f.Stmts[0]
	for range 2_000_000 {
		s = &syntax.Stmt{Cmd: &syntax.BinaryCmd{Op: syntax.Pipe, X: s, Y: &syntax.Stmt{Cmd: &syntax.CallExpr{}}}}
	}
	f.Stmts[0] = s
	if err := plainExpansions(f); err == nil || !strings.Contains(err.Error(), "levels deep") {
		t.Fatalf("err = %v, want the depth refused", err)
	}
}

func TestSnippetPutsNotesAsComments(t *testing.T) {
	reg := testRegistry(t, testServicesXML)
	call, err := FromCurl(`curl -H 'Authorization: Bearer x' https://crm.example.com/api/v2`, reg)
	if err != nil {
		t.Fatal(err)
	}
	got := call.Snippet("    ")
	want := "// restls: The Authorization header is left out: serviceId \"crm\" has basic authorization configured, which replaces it.\n" +
		"    api.rest.v1.get(\"crm\", {}, {});"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// doubling assigns X=$X$X n times: 2^n times the first value.
func doubling(n int) string {
	return strings.Repeat("X=$X$X\n", n)
}
