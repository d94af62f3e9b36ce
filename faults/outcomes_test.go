package faults

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// project writes services.xml (and the files of files) into a new
// directory and returns its snapshot with apis attached.
func project(t testing.TB, services string, files map[string]string, apis ...workspace.APISource) (workspace.Snapshot, string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "services.xml")
	if err := os.WriteFile(file, []byte(services), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range apis {
		apis[i].Location = filepath.Join(dir, apis[i].Location)
	}
	return workspace.NewSnapshot(config.Load(config.Sources{ServiceXML: file}), nil, apis, nil, nil, nil), dir
}

func exploreIn(t testing.TB, snap workspace.Snapshot, dir, text, fixtures string, opts Options) *Report {
	t.Helper()
	base, err := restclient.ParseMock("s.mock.yaml", []byte(fixtures))
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: max(opts.Parallel, 1)})
	rep, err := Explore(context.Background(), eng.Run, snap, engine.Request{Path: filepath.Join(dir, "s.js"), Text: text}, base, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// outcomes is "outcome=verdict" of site 0, with each status outcome's
// fixture body when documented.
func outcomes(rep *Report) string {
	var out []string
	for _, f := range rep.Findings {
		if f.Site != 0 {
			continue
		}
		s := f.Outcome + "=" + string(f.Verdict)
		if f.Documented {
			s += "(doc)"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// TestDocumentedStatuses (issue 36): with an API description attached
// (OpenAPI 3.0, 3.1, Swagger 2.0), a call site is answered with each
// non-2XX status its operation documents, the body from the description
// (its example, else a generated valid value), before the generic
// statuses it does not document; the script sees that body.
func TestDocumentedStatuses(t *testing.T) {
	t.Parallel()
	problem := `{"type":"object","required":["code"],"properties":{"code":{"type":"string"}}}`
	docs := map[string]string{
		"3.0": `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/orders/{id}":{"get":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{
			"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object"}}}},
			"404":{"description":"no","content":{"application/json":{"schema":` + problem + `,"example":{"code":"no-order"}}}},
			"409":{"description":"conflict","content":{"application/json":{"schema":` + problem + `}}}}}}}}`,
		"3.1": `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/orders/{id}":{"get":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{
			"200":{"description":"ok"},
			"404":{"description":"no","content":{"application/json":{"schema":` + problem + `,"examples":{"a":{"value":{"code":"no-order"}}}}}},
			"409":{"description":"conflict","content":{"application/json":{"schema":{"$ref":"#/components/schemas/P"}}}}}}}},
			"components":{"schemas":{"P":` + problem + `}}}`,
		"2.0": `{"swagger":"2.0","info":{"title":"t","version":"1"},"produces":["application/json"],"paths":{"/orders/{id}":{"get":{"parameters":[{"name":"id","in":"path","required":true,"type":"string"}],"responses":{
			"200":{"description":"ok"},
			"404":{"description":"no","schema":` + problem + `,"examples":{"application/json":{"code":"no-order"}}},
			"409":{"description":"conflict","schema":{"$ref":"#/definitions/P"}}}}}},
			"definitions":{"P":` + problem + `}}`,
	}
	text := "try {\n  return api.rest.v1.get(\"crm\", {pathParams: [\"orders\", \"7\"]}, {}).body;\n} catch (e) {\n  if (e.status && e.status.code === 404) return JSON.parse(e.body).code;\n  return e.status ? e.status.code : e.code;\n}"
	for version, doc := range docs {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			snap, dir := project(t, `<scriptservice><api serviceId="crm" url="http://127.0.0.1:1/api"/></scriptservice>`,
				map[string]string{"crm.json": doc}, workspace.APISource{ServiceID: "crm", Location: "crm.json"})
			rep := exploreIn(t, snap, dir, text, "- {serviceId: crm, body: {n: 1}}\n", Options{})
			if s := rep.Sites[0]; s.Operation != "GET /orders/{id}" {
				t.Errorf("site %+v: want operation GET /orders/{id}", s)
			}
			want := "404=handled(doc) 409=handled(doc) 500=handled 400=handled not-json=handled connect-timeout=handled read-timeout=handled connection-refused=handled"
			if got := outcomes(rep); got != want {
				t.Errorf("outcomes\n got %s\nwant %s", got, want)
			}
			results := map[string]string{}
			for _, f := range rep.Findings {
				results[f.Outcome] = string(f.Result)
			}
			if results["404"] != `"no-order"` || results["409"] != `409` {
				t.Errorf("the 404 must carry the description's example, the 409 a generated body: %v", results)
			}
			if !strings.Contains(string(rep.Findings[1].Fixture), `"body":{"code":""}`) {
				t.Errorf("409's fixture %s: want the generated body", rep.Findings[1].Fixture)
			}
		})
	}
	// No description: the generic set only.
	snap, dir := project(t, `<scriptservice><api serviceId="crm" url="http://127.0.0.1:1/api"/></scriptservice>`, nil)
	rep := exploreIn(t, snap, dir, text, "- {serviceId: crm, body: {n: 1}}\n", Options{})
	if got := outcomes(rep); got != "500=handled 404=handled 400=handled not-json=handled connect-timeout=handled read-timeout=handled connection-refused=handled" || rep.Sites[0].Operation != "" {
		t.Errorf("without a description: %s (%+v)", got, rep.Sites[0])
	}
}

const oauthServices = `<scriptservice>
  <api serviceId="pay" url="http://127.0.0.1:%[1]d/api"><authorization type="oAuth"><id>o</id></authorization></api>
  <oAuth id="o" url="http://127.0.0.1:%[1]d/token" grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientId="c" clientSecret="s3cret-value"/>
</scriptservice>`

// TestOAuthOutcomes: an OAuth service's call sites also get the token
// request failing and a 401 that stays 401 after the retry, answered by
// fixtures as the live client fails; a script that tells the 401 and
// the token failure apart from the rest handles both.
func TestOAuthOutcomes(t *testing.T) {
	t.Parallel()
	snap, dir := project(t, fmt.Sprintf(oauthServices, 1), nil)
	text := "try {\n  return api.rest.v1.get(\"pay\", {pathParams: [\"a\"]}, {}).body.n;\n} catch (e) {\n  if (e.status && e.status.code === 401) return \"login\";\n  if (e.code === \"token-request-failed\") return \"config\";\n  throw e;\n}"
	rep := exploreIn(t, snap, dir, text, "- {serviceId: pay, body: {n: 1}}\n", Options{})
	want := "500=escaped 404=escaped 400=escaped token-request-failed=handled 401-after-retry=handled not-json=escaped connect-timeout=escaped read-timeout=escaped connection-refused=escaped"
	if got := outcomes(rep); got != want || !rep.Sites[0].OAuth {
		t.Errorf("outcomes\n got %s\nwant %s (%+v)", got, want, rep.Sites[0])
	}
	// A documented 401 is the 401 after the retry, with its body.
	doc := `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"description":"ok"},
		"401":{"description":"no","content":{"application/json":{"schema":{"type":"object"},"example":{"reason":"expired"}}}}}}}}}`
	dsnap, ddir := project(t, fmt.Sprintf(oauthServices, 1), map[string]string{"pay.json": doc}, workspace.APISource{ServiceID: "pay", Location: "pay.json"})
	drep := exploreIn(t, dsnap, ddir, text, "- {serviceId: pay, body: {n: 1}}\n", Options{})
	if got := outcomes(drep); got != strings.Replace(want, "401-after-retry=handled", "401-after-retry=handled(doc)", 1) {
		t.Errorf("documented 401: %s", got)
	}
	for _, f := range drep.Findings {
		if f.Outcome == "401-after-retry" && !strings.Contains(string(f.Fixture), `"times":2,"status":401,"body":{"reason":"expired"}`) {
			t.Errorf("documented 401's fixture: %s", f.Fixture)
		}
	}
	for _, f := range rep.Findings {
		if f.Outcome == "401-after-retry" && (string(f.Result) != `"login"` || !strings.Contains(string(f.Fixture), `"times":2`)) {
			t.Errorf("401: %s with %s", f.Result, f.Fixture)
		}
		if f.Outcome == "token-request-failed" && string(f.Result) != `"config"` {
			t.Errorf("token: %s", f.Result)
		}
	}
}

// TestNeverDials: exploration answers every run from fixtures: a service
// and a token endpoint on a listener that counts connections see none,
// whatever the outcomes, OAuth ones included.
func TestNeverDials(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var dials atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			dials.Add(1)
			c.Close()
		}
	}()
	snap, dir := project(t, fmt.Sprintf(oauthServices, ln.Addr().(*net.TCPAddr).Port), nil)
	text := "var out = [];\nfor (var i = 0; i < 3; i++) {\n  try { out.push(api.rest.v1.get(\"pay\", {pathParams: [\"p\" + i]}, {}).body.n); } catch (e) { out.push(String(e.code || e.status.code)); }\n}\nreturn out;"
	rep := exploreIn(t, snap, dir, text, "- {serviceId: pay, body: {n: 1}}\n", Options{Parallel: 2})
	if rep.Runs != 3*9 {
		t.Errorf("%d runs, want 27", rep.Runs)
	}
	if n := dials.Load(); n != 0 {
		t.Errorf("exploration dialed the service %d times", n)
	}
}

// TestParallelIsTheSame: reruns side by side give the report one after
// the other gives, findings in the same order.
func TestParallelIsTheSame(t *testing.T) {
	t.Parallel()
	snap, dir := crm(t)
	text := "var a = api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {}).body.n;\ntry { api.rest.v1.get(\"crm\", {pathParams: [\"b\"]}, {}); } catch (e) { return e.status.code; }\nreturn a;"
	one := exploreIn(t, snap, dir, text, "- {serviceId: crm, body: {n: 1}}\n", Options{})
	two := exploreIn(t, snap, dir, text, "- {serviceId: crm, body: {n: 1}}\n", Options{Parallel: 2})
	if !reflect.DeepEqual(one, two) {
		t.Errorf("parallel differs:\n%+v\n%+v", one, two)
	}
}

// TestFailingVerdicts: which verdicts fail is the caller's; by default
// crashed and misread; names are checked.
func TestFailingVerdicts(t *testing.T) {
	t.Parallel()
	text := "var r = api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {});\nreturn r.body.n;"
	if rep := explore(t, text, Options{}); rep.Failed() != 0 || rep.Count(Escaped) != 7 {
		t.Errorf("default: %d failing, %d escaped", rep.Failed(), rep.Count(Escaped))
	}
	if rep := explore(t, text, Options{Fail: []Verdict{Escaped}}); rep.Failed() != 7 {
		t.Errorf("escaped failing: %d", rep.Failed())
	}
	if _, err := ParseVerdicts([]string{"crashed", "handled"}); err == nil {
		t.Error("handled cannot fail")
	}
	if v, err := ParseVerdicts([]string{"escaped", " crashed", "escaped"}); err != nil || !reflect.DeepEqual(v, []Verdict{Escaped, Crashed}) {
		t.Errorf("%v %v", v, err)
	}
}

// TestReadTimeoutAtTheEffectiveMaximum: the read-timeout outcome is the
// call's effective timeout: a readTimeout above the maximum (30000 ms)
// times out at the maximum, as the live client clamps it.
func TestReadTimeoutAtTheEffectiveMaximum(t *testing.T) {
	t.Parallel()
	rep := explore(t, "try {\n  return api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {}, {readTimeout: 99999}).body.n;\n} catch (e) {\n  return e.message;\n}", Options{Outcomes: []string{"read-timeout"}})
	if len(rep.Findings) != 1 || !strings.Contains(string(rep.Findings[0].Result), "30000 ms") {
		t.Errorf("read-timeout: %+v", rep.Findings)
	}
}
