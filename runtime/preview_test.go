package runtime

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/restls/restls/internal/goldentest"
	"github.com/restls/restls/internal/oauthtest"
)

// previewHosts names the loopback servers of a test in the preview, so
// that golden files do not hold random ports.
type previewHosts map[*httptest.Server]string

var (
	previewDuration = regexp.MustCompile(`\(\d+(?:\.\d+)? ms(, \d+(?:\.\d)? [kM]?B)?\)`)
	previewTiming   = regexp.MustCompile(`(?m)^.*~ timing: .*$`)
	previewPhase    = regexp.MustCompile(`\d+(?:\.\d+)? ms`)
	previewDate     = regexp.MustCompile(`(?im)^(\s*< date: ).*$`)
	previewLength   = regexp.MustCompile(`(?im)^(\s*[<>] content-length: )\d+$`)
	previewTook     = regexp.MustCompile(`\bin \d+(?:\.\d+)? ms\b`)
	previewBoundary = regexp.MustCompile(`boundary=([0-9A-Za-z'()+_,./:=?-]+)`)
	previewBudget   = regexp.MustCompile(`took \d+ ms, \d+%`)
)

// checkPreview compares the preview of res with
// testdata/golden/preview/<name>.txt after replacing what changes between
// runs: durations, the date header, multipart boundaries and server
// addresses (and so the length of bodies that echo them).
func checkPreview(t *testing.T, name string, res *Result, hosts previewHosts) {
	t.Helper()
	checkPreviewWith(t, name, res, hosts, PreviewOptions{})
}

// checkPreviewWith is checkPreview with options. Sizes read SIZE (bodies
// that echo a server address change length with its port), timing phases
// N ms, and colour codes \e[...m so the golden file stays readable text.
func checkPreviewWith(t *testing.T, name string, res *Result, hosts previewHosts, o PreviewOptions) {
	t.Helper()
	var buf bytes.Buffer
	if err := WritePreview(&buf, res, "test.js", o); err != nil {
		t.Fatal(err)
	}
	out := strings.ReplaceAll(buf.String(), "\x1b", `\e`)
	out = previewTiming.ReplaceAllStringFunc(out, func(l string) string { return previewPhase.ReplaceAllString(l, "N ms") })
	for srv, host := range hosts {
		out = strings.ReplaceAll(out, srv.Listener.Addr().String(), host)
	}
	for _, m := range previewBoundary.FindAllStringSubmatch(out, -1) {
		out = strings.ReplaceAll(out, m[1], "BOUNDARY")
	}
	out = previewDuration.ReplaceAllStringFunc(out, func(m string) string {
		if strings.Contains(m, ",") {
			return "(N ms, SIZE)"
		}
		return "(N ms)"
	})
	out = previewTook.ReplaceAllString(out, "in N ms")
	out = previewBudget.ReplaceAllString(out, "took N ms, N%")
	out = previewDate.ReplaceAllString(out, "${1}DATE")
	out = previewLength.ReplaceAllString(out, "${1}N")
	goldentest.Check(t, filepath.Join("testdata", "golden", "preview", name+".txt"), out)
}

// TestPreviewGolden runs a representative set of scripts against
// go-httpbin, a real OAuth2 server and fixtures, and compares what
// `restls run` prints with golden files (-update rewrites them, see
// internal/goldentest).
func TestPreviewGolden(t *testing.T) {
	bin := httpbinServer(t)
	tok := oauthtest.New(t, oauthtest.Options{ClientID: "forms", Secret: "cl1ent-S3cret-Value", Users: map[string]string{"svc": "us3r-Passw0rd-Value"}})
	hosts := previewHosts{bin: "httpbin.test", tok.Server: "token.test"}
	reg := registryXML(t, fmt.Sprintf(`<scriptservice>
  <api serviceId="bin" url="%[1]s"/>
  <api serviceId="bin-basic" url="%[1]s/anything"><authorization type="basic"><encodedCredentials>dXNlcjpiMW4tUGFzc3dvcmQ=</encodedCredentials></authorization></api>
  <api serviceId="cc" url="%[1]s/anything"><authorization type="oAuth"><id>cc</id></authorization></api>
  <oAuth id="cc" url="%[2]s" grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientId="forms" clientSecret="cl1ent-S3cret-Value"/>
</scriptservice>`, bin.URL, tok.URL))

	t.Run("several calls", func(t *testing.T) {
		res := run(t, reg, lines(
			`console.log("start", {n: 1});`,
			`var g = api.rest.v1.get("bin", {pathParams: ["get"], queryParams: {q: "a b", lang: "de"}}, {"Accept": "application/json", "X-Request-ID": "r-1"});`,
			`console.info("got", g.status.code, g.body.args.q[0]);`,
			`var p = api.rest.v1.post("bin", {pathParams: ["anything", "orders"]}, {"X-Request-ID": "r-2"}, {id: 7, items: [{sku: "A-1", qty: 2}], note: null});`,
			`console.warn("posted", p.body.json.id);`,
			`return {get: g.status.code, post: p.body.method};`,
		))
		mustReturn(t, res)
		checkPreview(t, "several-calls", res, hosts)
	})
	t.Run("multipart", func(t *testing.T) {
		res := run(t, reg, `var r = api.rest.v1.post("bin", {pathParams: ["anything"]}, {"Content-Type": "multipart/form-data"}, {name: "Ann", n: 3}); return r.body.form;`)
		mustReturn(t, res)
		checkPreview(t, "multipart", res, hosts)
	})
	t.Run("oauth token", func(t *testing.T) {
		res := run(t, reg, lines(
			`var a = api.rest.v1.get("cc", {pathParams: ["first"]}, {});`,
			`var b = api.rest.v1.get("cc", {pathParams: ["second"]}, {});`,
			`return [a.status.code, b.status.code];`,
		))
		mustReturn(t, res)
		checkPreview(t, "oauth-token", res, hosts)
	})
	t.Run("masked credential", func(t *testing.T) {
		res := run(t, reg, `return api.rest.v1.get("bin-basic", {}, {"Authorization": "Bearer hard-coded-Script-Token"}).status.code;`)
		mustReturn(t, res)
		checkPreview(t, "masked-credential", res, hosts)
	})
	t.Run("response error caught", func(t *testing.T) {
		res := run(t, reg, lines(
			`try {`,
			`  api.rest.v1.get("bin", {pathParams: ["status", "404"]}, {});`,
			`} catch (e) {`,
			`  console.error("not found:", e.status.code, e.status.message);`,
			`  return "fallback";`,
			`}`,
		))
		mustReturn(t, res)
		checkPreview(t, "response-error-caught", res, hosts)
	})
	t.Run("response error uncaught", func(t *testing.T) {
		res := run(t, reg, lines(`var x = 1;`, `api.rest.v1.get("bin", {pathParams: ["status", "500"]}, {});`))
		if res.ExitCode() != 1 {
			t.Errorf("exit code %d", res.ExitCode())
		}
		checkPreview(t, "response-error-uncaught", res, hosts)
	})
	t.Run("text body", func(t *testing.T) {
		m := mock(t, `[{serviceId: bin, path: "json", headers: {Content-Type: "text/plain; charset=utf-8"}, bodyText: '{"id":7,"tags":["a"]}'},`+
			`{serviceId: bin, path: "text", headers: {Content-Type: text/plain}, bodyText: "plain words"}]`)
		res := run(t, reg, lines(
			`var r = api.rest.v1.get("bin", {pathParams: ["json"]}, {});`,
			`try { api.rest.v1.get("bin", {pathParams: ["text"]}, {}); } catch (e) { console.log(e.code); }`,
			`return r.body;`,
		), func(o *Options) { o.Mock = m })
		checkPreview(t, "text-body", res, hosts)
	})
	t.Run("syntax errors", func(t *testing.T) {
		res := run(t, reg, lines(`var x = foo(;`, "\tif (x {", `  return 1;`, `}`))
		checkPreview(t, "syntax-errors", res, hosts)
	})
	t.Run("timeout budget", func(t *testing.T) {
		// A fixture's delay is the answer's time: 1,700 ms of a 2,000 ms
		// read timeout is past 80% of it. The 300 ms left over is slack
		// for a loaded machine (with 170 of 200 ms, timers 30 ms late
		// turned the answer into a read-timeout).
		m := mock(t, `[{serviceId: bin, path: "slow", delay: 1700ms, body: {ok: true}}]`)
		res := run(t, reg, `return api.rest.v1.get("bin", {pathParams: ["slow"]}, {}, {readTimeout: 2000}).body;`, func(o *Options) { o.Mock = m })
		mustReturn(t, res)
		checkPreview(t, "timeout-budget", res, hosts)
	})
	t.Run("unclosed block", func(t *testing.T) {
		res := run(t, reg, lines(`var a = [1, 2;`, ``))
		checkPreview(t, "unclosed-block", res, hosts)
	})
	t.Run("response error body", func(t *testing.T) {
		m := mock(t, `[{serviceId: bin, status: 422, body: {error: "invalid", fields: [name, email]}}]`)
		res := run(t, reg, `api.rest.v1.post("bin", {pathParams: ["orders"]}, {}, {name: ""});`, func(o *Options) { o.Mock = m })
		checkPreview(t, "response-error-body", res, hosts)
	})
	t.Run("rest client error", func(t *testing.T) {
		res := run(t, reg, lines(
			`try {`,
			`  api.rest.v1.get("bim", {}, {});`,
			`} catch (e) {`,
			`  console.log(e.name, e.code);`,
			`}`,
			`api.rest.v1.get("bin", {pathParams: ["delay", "3"]}, {}, {readTimeout: 100});`,
		))
		checkPreview(t, "rest-client-error", res, hosts)
	})
	t.Run("long body", func(t *testing.T) {
		m := mock(t, `[{serviceId: bin, body: {items: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45]}}]`)
		res := run(t, reg, `return api.rest.v1.get("bin", {}, {}).body.items.length;`, func(o *Options) { o.Mock = m })
		mustReturn(t, res)
		checkPreview(t, "long-body", res, hosts)
	})
	t.Run("full", func(t *testing.T) {
		m := mock(t, `[{serviceId: bin, body: {items: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45]}}]`)
		res := run(t, reg, `return api.rest.v1.get("bin", {}, {}).body.items.length;`, func(o *Options) { o.Mock = m })
		mustReturn(t, res)
		checkPreviewWith(t, "full", res, hosts, PreviewOptions{Full: true})
	})
	t.Run("verbose", func(t *testing.T) {
		res := run(t, reg, lines(
			`var a = api.rest.v1.post("bin-basic", {pathParams: ["orders"]}, {"X-Request-ID": "r-1"}, {id: 7});`,
			`var b = api.rest.v1.get("bin-basic", {queryParams: {q: "a b"}}, {});`,
			`return [a.status.code, b.status.code];`,
		), func(o *Options) { o.Trace = true })
		mustReturn(t, res)
		checkPreviewWith(t, "verbose", res, hosts, PreviewOptions{Verbose: true})
	})
	t.Run("color", func(t *testing.T) {
		m := mock(t, `[{serviceId: bin, path: ok, body: {id: 7}}, {serviceId: bin, path: moved, status: 301}, {serviceId: bin, path: missing, status: 404, body: {error: "no such order"}}, {serviceId: bin, path: broken, status: 503}]`)
		res := run(t, reg, lines(
			`console.log("start");`,
			`var r = api.rest.v1.get("bin", {pathParams: ["ok"]}, {});`,
			`try { api.rest.v1.get("bin", {pathParams: ["moved"]}, {}); } catch (e) { console.info("moved:", e.status.code); }`,
			`try { api.rest.v1.get("bin", {pathParams: ["missing"]}, {}); } catch (e) { console.warn("missing:", e.status.code); }`,
			`try { api.rest.v1.get("bim", {}, {}); } catch (e) { console.error(e.code); }`,
			`api.rest.v1.get("bin", {pathParams: ["broken"]}, {});`,
		), func(o *Options) { o.Mock, o.Trace = m, true })
		checkPreviewWith(t, "color", res, hosts, PreviewOptions{Color: true, Verbose: true})
	})
	t.Run("thrown error", func(t *testing.T) {
		res := run(t, nil, lines(`console.log("before");`, `var a = 1;`, `  throw new TypeError("boom");`))
		checkPreview(t, "thrown-error", res, hosts)
	})
}

func TestColorFor(t *testing.T) {
	for _, tc := range []struct {
		mode     string
		terminal bool
		noColor  string
		want     bool
	}{
		{"auto", true, "", true},
		{"auto", false, "", false},
		{"auto", true, "1", false},
		{"auto", true, "0", false}, // any non-empty value (no-color.org)
		{"", true, "", true},
		{"always", false, "1", true},
		{"never", true, "", false},
	} {
		got, err := ColorFor(tc.mode, tc.terminal, tc.noColor)
		if err != nil || got != tc.want {
			t.Errorf("ColorFor(%q, %v, %q) = %v, %v; want %v", tc.mode, tc.terminal, tc.noColor, got, err, tc.want)
		}
	}
	if _, err := ColorFor("yes", true, ""); err == nil {
		t.Error("ColorFor accepts yes")
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 1234: "1.2 kB", 999_949: "999.9 kB", 999_950: "1.0 MB", 10 << 20: "10.5 MB"} {
		if got := size(n); got != want {
			t.Errorf("size(%d) = %q, want %q", n, got, want)
		}
	}
}
