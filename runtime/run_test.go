package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/config"
)

func TestReturnConsoleAndInput(t *testing.T) {
	res := run(t, nil, lines(
		`console.log("hello", {a: 1}, [1, 2], undefined, null, 3);`,
		`var n = context.input.n;`,
		`console.warn(new TypeError("careful"));`,
		`return {n: n, twice: n * 2, s: "é"};`,
	), func(o *Options) { o.Input = json.RawMessage(`{"n": 21}`) })
	jsonEqual(t, mustReturn(t, res), `{"n":21,"twice":42,"s":"é"}`)
	if len(res.Logs) != 2 {
		t.Fatalf("logs %+v", res.Logs)
	}
	if l := res.Logs[0]; l.Level != "log" || l.Message != `hello {"a":1} [1,2] undefined null 3` || l.Line != 1 {
		t.Errorf("log 0 %+v", l)
	}
	if l := res.Logs[1]; l.Level != "warn" || l.Message != "TypeError: careful" || l.Line != 3 {
		t.Errorf("log 1 %+v", l)
	}
	if res.ExitCode() != 0 {
		t.Error("exit code")
	}
	// No return: null. Default input: {}.
	jsonEqual(t, mustReturn(t, run(t, nil, `var x = Object.keys(context.input).length; if (x) throw 1;`)), `null`)
}

func TestPositionsMatchTheFile(t *testing.T) {
	res := run(t, nil, lines(
		`var a = 1;`,
		``,
		`  throw new Error("boom");`,
	))
	if e := res.Error; e == nil || e.Name != "Error" || e.Message != "boom" || e.Line != 3 || e.Column != 9 {
		t.Fatalf("error %+v", res.Error)
	}
	res = run(t, nil, `var a = ;`)
	if e := res.Error; e == nil || e.Name != "SyntaxError" || e.Line != 1 || e.Column != 9 {
		t.Fatalf("syntax error on line 1: %+v", res.Error)
	}
	res = run(t, nil, lines(`var a = 1;`, `var b = a +;`))
	if e := res.Error; e == nil || e.Name != "SyntaxError" || e.Line != 2 || e.Column != 12 {
		t.Fatalf("syntax error on line 2: %+v", res.Error)
	}
	res = run(t, nil, lines(`if (x) {`, `  return 1;`))
	if e := res.Error; e == nil || e.Name != "SyntaxError" || e.Line != 2 || e.Column != 12 {
		t.Fatalf("unclosed block: %+v", res.Error)
	}
	res = run(t, nil, `undefinedFunction();`)
	if e := res.Error; e == nil || e.Name != "ReferenceError" || e.Line != 1 || e.Column != 18 {
		t.Fatalf("reference error: %+v", res.Error)
	}
	if res.ExitCode() != 1 {
		t.Error("exit code")
	}
	// A script may end in a line comment.
	jsonEqual(t, mustReturn(t, run(t, nil, "return 5 // done")), `5`)
}

func TestSyntaxErrorsAreAllListedWithTheirLines(t *testing.T) {
	res := run(t, nil, lines(
		`var x = foo(;`,
		"\tif (x {",
		`  return 1;`,
		``,
	))
	e := res.Error
	if e == nil || e.Name != "SyntaxError" {
		t.Fatalf("error %+v", e)
	}
	type place struct {
		line, col int
		src, msg  string
	}
	var got []place
	for _, x := range e.Errors {
		got = append(got, place{x.Line, x.Column, x.SourceLine, x.Message})
	}
	if len(got) < 2 || len(got) > MaxSyntaxErrors {
		t.Fatalf("errors %+v", got)
	}
	if first := got[0]; first != (place{1, 13, "var x = foo(;", "Unexpected token ;"}) || e.Line != 1 || e.Column != 13 ||
		e.SourceLine != "var x = foo(;" || e.Message != "Unexpected token ;" {
		t.Errorf("first error %+v, error %+v", first, e)
	}
	if second := got[1]; second.line != 2 || second.src != "\tif (x {" {
		t.Errorf("second error %+v", second)
	}

	// What the parser says of the wrapper's closing "})" is said once, as
	// the end of the script, on its last line with text.
	e = run(t, nil, lines(`var a = 1;`, "\tif (a {", `  return 2;`, `}`, ``)).Error
	got = nil
	for _, x := range e.Errors {
		got = append(got, place{x.Line, x.Column, x.SourceLine, x.Message})
	}
	if len(got) != 2 || got[0].line != 2 || got[0].col != 8 {
		t.Fatalf("errors %+v", got)
	}
	if last := got[1]; last.line != 4 || last.col != 2 || last.src != "}" || !strings.Contains(last.msg, "end of input") {
		t.Errorf("last error %+v", last)
	}
	ends := 0
	for _, p := range got {
		if strings.Contains(p.msg, "})") || strings.Contains(p.msg, "token }") || strings.Contains(p.msg, "token )") {
			t.Errorf("an error about the wrapper reached the author: %+v", p)
		}
		if strings.Contains(p.msg, "end of input") {
			ends++
		}
	}
	if ends != 1 {
		t.Errorf("%d end-of-input errors in %+v", ends, got)
	}
}

func TestContextAPIIsReplaced(t *testing.T) {
	res := run(t, nil, `return context.api("crm")`)
	if e := res.Error; e == nil || !strings.Contains(e.Message, "replaced by api.rest.v1 (platform 2.2924.0)") || e.Line != 1 {
		t.Fatalf("error %+v", res.Error)
	}
}

func TestGetResultShape(t *testing.T) {
	srv := httpbinServer(t)
	res := run(t, binRegistry(t, srv.URL), lines(
		`var r = api.rest.v1.get("bin", {pathParams: ["response-headers"], queryParams: {"X-Multi": "a", "Content-Type": "application/json"}}, {});`,
		`var keys = Object.keys(r.headers);`,
		`return {`,
		`  code: r.status.code, message: r.status.message,`,
		`  ci: r.headers["Content-Type"] === r.headers["content-type"] && r.headers["CONTENT-TYPE"] === "application/json",`,
		`  lower: keys.every(function (k) { return k === k.toLowerCase(); }),`,
		`  multi: r.headers["x-multi"], has: "x-multi" in r.headers, missing: r.headers["x-none"] === undefined,`,
		`  bodyType: typeof r.body, bodyMulti: r.body["X-Multi"]`,
		`};`,
	))
	jsonEqual(t, mustReturn(t, res), `{"code":200,"message":"OK","ci":true,"lower":true,"multi":"a","has":true,"missing":true,"bodyType":"object","bodyMulti":["a"]}`)
	c := res.Calls[0]
	if c.ServiceID != "bin" || c.Method != "GET" || !strings.HasPrefix(c.URL, srv.URL+"/response-headers?") || c.Status.Code != 200 {
		t.Errorf("call %+v", c)
	}
	// Repeated response headers are joined with ", ".
	res = run(t, binRegistry(t, srv.URL), `return api.rest.v1.get("bin", {pathParams: ["response-headers"], queryParams: {"X-Multi": "a"}}, {}).headers["X-Multi"]`)
	jsonEqual(t, mustReturn(t, res), `"a"`)
	// 204: body null.
	res = run(t, binRegistry(t, srv.URL), `var r = api.rest.v1.delete("bin", {pathParams: ["status", "204"]}, {}); return [r.status.code, r.body];`)
	jsonEqual(t, mustReturn(t, res), `[204, null]`)
}

func TestPostPutPatchSendPayload(t *testing.T) {
	srv := httpbinServer(t)
	reg := binRegistry(t, srv.URL)
	for _, m := range []string{"post", "put", "patch"} {
		res := run(t, reg, `var r = api.rest.v1.`+m+`("bin", {pathParams: ["anything"]}, {"X-A": "1"}, {b: [1, "x"], a: {n: null}, d: new Date(0)});
return [r.body.method, r.body.json, r.body.headers["Content-Type"][0]];`)
		jsonEqual(t, mustReturn(t, res), `["`+strings.ToUpper(m)+`", {"b":[1,"x"],"a":{"n":null},"d":"1970-01-01T00:00:00.000Z"}, "application/json"]`)
		if got := string(res.Calls[0].RequestBody); got != `{"b":[1,"x"],"a":{"n":null},"d":"1970-01-01T00:00:00.000Z"}` {
			t.Errorf("%s: request body in trace %s (key order must be the script's)", m, got)
		}
	}
	res := run(t, reg, `var r = api.rest.v1.post("bin", {pathParams: ["anything"]}, {"Content-Type": "multipart/form-data"}, {name: "Ann", n: 3, tags: ["a"]});
return r.body.form;`)
	jsonEqual(t, mustReturn(t, res), `{"name":["Ann"],"n":["3"],"tags":["[\"a\"]"]}`)
}

func TestNon2XXIsThrownWithoutHeaders(t *testing.T) {
	srv := httpbinServer(t)
	reg := binRegistry(t, srv.URL)
	res := run(t, reg, lines(
		`try {`,
		`  api.rest.v1.get("bin", {pathParams: ["status", "404"]}, {});`,
		`} catch (e) {`,
		`  if (e.status && e.status.code) return [e.status.code, e.status.message, typeof e.body, "headers" in e, Object.keys(e)];`,
		`  throw e;`,
		`}`,
	))
	jsonEqual(t, mustReturn(t, res), `[404, "Not Found", "string", false, ["status","body"]]`)

	res = run(t, reg, lines(`var x = 1;`, `api.rest.v1.post("bin", {pathParams: ["status", "500"]}, {}, {});`))
	e := res.Error
	if e == nil || e.Name != "ResponseError" || e.Status == nil || e.Status.Code != 500 || e.Body == nil || e.Line != 2 || e.ServiceID != "bin" {
		t.Fatalf("uncaught 500: %+v", e)
	}
	// Redirects are not followed: they are thrown too.
	res = run(t, reg, `try { api.rest.v1.get("bin", {pathParams: ["redirect-to"], queryParams: {url: "/get"}}, {}); } catch (e) { return e.status.code; }`)
	jsonEqual(t, mustReturn(t, res), `302`)
}

func TestRestClientErrors(t *testing.T) {
	srv := httpbinServer(t)
	reg := binRegistry(t, srv.URL)
	res := run(t, reg, lines(
		`try {`,
		`  api.rest.v1.get("bim", {}, {});`,
		`} catch (e) {`,
		`  return [e instanceof Error, e.name, e.code, e.serviceId, e.status === undefined, String(e).indexOf("RestClientError: ") === 0, e.message];`,
		`}`,
	))
	var got []any
	_ = json.Unmarshal([]byte(mustReturn(t, res)), &got)
	if len(got) != 7 || got[0] != true || got[1] != "RestClientError" || got[2] != "unknown-service" || got[3] != "bim" || got[4] != true || got[5] != true ||
		!strings.Contains(got[6].(string), `did you mean "bin"`) {
		t.Fatalf("caught %v", got)
	}
	// The docs/api.md#errors pattern treats it as foreign and rethrows it; the position
	// stays the call's.
	res = run(t, reg, lines(
		`try {`,
		`  api.rest.v1.get("bin", {pathParams: ["delay", "3"]}, {}, {readTimeout: 100});`,
		`} catch (e) {`,
		`  if (e.status && e.status.code) return "fallback";`,
		`  throw e;`,
		`}`,
	))
	if e := res.Error; e == nil || e.Name != "RestClientError" || e.Code != "read-timeout" || e.ServiceID != "bin" || e.Line != 2 {
		t.Fatalf("rethrown: %+v", res.Error)
	}
	if c := res.Calls[0]; c.ErrorCode != "read-timeout" {
		t.Errorf("call %+v", c)
	}
	res = run(t, reg, `api.rest.v1.get("bin", {pathParams: ["html"]}, {})`)
	if e := res.Error; e == nil || e.Code != "not-json" || !strings.Contains(e.Message, "text/html") {
		t.Fatalf("not json: %+v", res.Error)
	}
}

func TestTypeErrorsNameTheParameterAndSignature(t *testing.T) {
	reg := binRegistry(t, "https://bin.example.com")
	getSig := "api.rest.v1.get(SERVICE_ID, PATH, HEADER[, TIMEOUTS])"
	postSig := "api.rest.v1.post(SERVICE_ID, PATH, HEADER, PAYLOAD[, TIMEOUTS])"
	for _, tt := range []struct {
		call, want, sig string
	}{
		{`get("bin")`, "missing PATH, argument 2 (pass {} for none)", getSig},
		{`get("bin", {})`, "missing HEADER, argument 3", getSig},
		{`get("bin", {}, {}, {name: "x"})`, "GET sends no body, so it takes no PAYLOAD", getSig},
		{`delete("bin", {}, {}, {}, {})`, "DELETE sends no body, so it takes no PAYLOAD", "api.rest.v1.delete("},
		{`post("bin", {}, {})`, "missing PAYLOAD, argument 4 (pass {} for an empty body)", postSig},
		{`post("bin", {}, {}, {}, {}, {})`, "too many arguments (6)", postSig},
		{`get(42, {}, {})`, "SERVICE_ID must be a non-empty string", getSig},
		{`get("", {}, {})`, "SERVICE_ID must be a non-empty string", getSig},
		{`get("bin", null, {})`, "PATH must be an object, got null", getSig},
		{`get("bin", {pathParams: "a"}, {})`, "PATH.pathParams must be an array of strings", getSig},
		{`get("bin", {pathParams: ["a", 1]}, {})`, "PATH.pathParams[1] is the number 1; the platform accepts strings only", getSig},
		{`get("bin", {pathParams: ["a", ".."]}, {})`, "pathParams[1] is \"..\"; dot segments are not allowed", getSig},
		{`get("bin", {pathParams: [""]}, {})`, "pathParams[0] is empty", getSig},
		{`get("bin", {queryParams: {n: 1}}, {})`, "PATH.queryParams.n is the number 1; query values must be strings, the platform accepts strings only", getSig},
		{`get("bin", {params: []}, {})`, `PATH has an unknown key "params"`, getSig},
		{`get("bin", {}, {"X-A": "a\r\nInjected: 1"})`, "contains a CR or LF", getSig},
		{`get("bin", {}, {"X-A": 1})`, "header values must be strings", getSig},
		{`get("bin", {}, [])`, "HEADER must be an object, got an array", getSig},
		{`get("bin", {}, {}, {readTimeout: -5})`, "TIMEOUTS.readTimeout must be a positive whole number", getSig},
		{`get("bin", {}, {}, {connectionTimeout: 1.5})`, "TIMEOUTS.connectionTimeout must be a positive whole number", getSig},
		{`get("bin", {}, {}, 100)`, "TIMEOUTS must be an object", getSig},
		{`post("bin", {}, {}, (function () { var a = {}; a.self = a; return a; })())`, "PAYLOAD cannot be sent as JSON", postSig},
		{`post("bin", {}, {}, undefined)`, "PAYLOAD is undefined (pass {} for an empty body)", postSig},
		{`post("bin", {}, {"Content-Type": "multipart/form-data"}, [1])`, "PAYLOAD: a multipart/form-data payload must be an object", postSig},
	} {
		res := run(t, reg, `try { api.rest.v1.`+tt.call+`; return "no error"; } catch (e) { return [e instanceof TypeError, e.message]; }`)
		var got []any
		_ = json.Unmarshal([]byte(mustReturn(t, res)), &got)
		if len(got) != 2 || got[0] != true || !strings.Contains(got[1].(string), tt.want) || !strings.Contains(got[1].(string), tt.sig) {
			t.Errorf("%s: got %v, want a TypeError containing %q and %q", tt.call, got, tt.want, tt.sig)
		}
	}
}

func TestTimeoutInterruptsTheScript(t *testing.T) {
	res := run(t, nil, lines(`var i = 0;`, `while (true) { i++; }`), func(o *Options) { o.Timeout = 50 * time.Millisecond })
	if e := res.Error; e == nil || e.Name != "TimeoutError" || e.Code != CodeScriptTimeout || e.Line != 2 || !strings.Contains(e.Message, "50ms") {
		t.Fatalf("error %+v", res.Error)
	}
	// A call in flight is canceled too, and try/catch cannot swallow it.
	reg := binRegistry(t, "https://bin.example.com")
	res = run(t, reg, `try { api.rest.v1.get("bin", {}, {}); } catch (e) { return "caught"; }`, func(o *Options) {
		o.Timeout = 50 * time.Millisecond
		o.Mock = mock(t, `[{serviceId: bin, delay: 10s, body: {}}]`)
	})
	if e := res.Error; e == nil || e.Code != CodeScriptTimeout {
		t.Fatalf("error %+v", res.Error)
	}
	// A caller's cancellation stops the run the same way.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := Run(ctx, Options{Source: `while (true) {}`, Registry: reg})
	if e := r.Error; e == nil || e.Code != CodeCanceled {
		t.Fatalf("canceled: %+v", r.Error)
	}
}

// TestTimeoutWhileACallWaits is issue 33's point 25: a script whose
// time ran out while a call waited ended with RestClientError canceled,
// not the script-timeout a user looks for. Now the code is
// script-timeout, at the call, saying which call waited.
func TestTimeoutWhileACallWaits(t *testing.T) {
	reg := binRegistry(t, "https://bin.example.com")
	res := run(t, reg, lines(`var a = 1;`, `var r = api.rest.v1.get("bin", {}, {});`, `return r.body;`), func(o *Options) {
		o.Timeout = 100 * time.Millisecond
		o.Mock = mock(t, `[{serviceId: bin, delay: 10s, body: {}}]`)
	})
	e := res.Error
	if e == nil || e.Name != "TimeoutError" || e.Code != CodeScriptTimeout || e.Line != 2 || e.ServiceID != "" {
		t.Fatalf("error %+v, want a TimeoutError script-timeout at line 2", e)
	}
	if want := "time limit of 100ms and was interrupted while its call to bin waited for an answer"; !strings.Contains(e.Message, want) {
		t.Errorf("message %q lacks %q", e.Message, want)
	}
	// A caller's cancellation while a call waits stays canceled.
	ctx, cancel := context.WithCancel(context.Background())
	o := Options{Source: `api.rest.v1.get("bin", {}, {});`, Registry: reg, Mock: mock(t, `[{serviceId: bin, delay: 10s, body: {}}]`)}
	done := make(chan *Result, 1)
	go func() { done <- Run(ctx, o) }()
	time.AfterFunc(50*time.Millisecond, cancel)
	if r := <-done; r.Error == nil || r.Error.Code != CodeCanceled {
		t.Errorf("canceled while a call waits: %+v", r.Error)
	}
}

// TestTimeoutInAnEmptyLoop is issue 33's point 25: goja folds a constant
// loop test away, so while (true) {} had no place of its own and an
// interrupt there was shown at the statement before it (the last call).
// Now it is shown at the loop; loops that end keep their meaning.
func TestTimeoutInAnEmptyLoop(t *testing.T) {
	reg := binRegistry(t, "https://bin.example.com")
	for _, tc := range []struct {
		src       string
		line, col int
	}{
		{lines(`var r = api.rest.v1.get("bin", {}, {});`, `while (true) {}`), 2, 1},
		{lines(`var x = 1;`, `  for (;;) {}`), 2, 3},
		{lines(`var x = 1;`, `do {} while (1)`), 2, 1},
		{lines(`function f() {`, `  var x = "a";`, `  while ("yes") { ; }`, `}`, `f();`), 3, 3},
		{lines(`var x = [1].map(function (v) {`, `  label: for (;true;) {}`, `});`), 2, 10},
	} {
		res := run(t, reg, tc.src, func(o *Options) {
			o.Timeout = 100 * time.Millisecond
			o.Mock = mock(t, `[{serviceId: bin, body: {}}]`)
		})
		if e := res.Error; e == nil || e.Code != CodeScriptTimeout || e.Line != tc.line || e.Column != tc.col {
			t.Errorf("%s:\nerror %+v, want script-timeout at %d:%d", tc.src, e, tc.line, tc.col)
		}
	}
	res := run(t, nil, lines(`var n = 0, i = 0;`, `while (0) { n = 100; }`, `do { n++; } while (false);`, `while ("") { n = 100; }`,
		`for (;;) { if (++i > 3) break; }`, `while (true) { if (++i > 5) break; }`, `return [n, i];`))
	if got := mustReturn(t, res); got != `[1,6]` {
		t.Errorf("loops that end: %s, want [1,6]", got)
	}
}

func TestMockModeAndKinds(t *testing.T) {
	snap := config.Load(config.Sources{ConfigRoot: "../testdata/config"})
	m := mock(t, `
fixtures:
  - serviceId: crm-customers
    method: GET
    path: "*"
    body: {id: 42, name: Ann}
  - serviceId: archive-cases
    path: "**"
    status: 201
    body: {archived: true}
  - serviceId: geo
    delay: 5s
    body: {}
`)
	src := `return api.rest.v1.get("crm-customers", {pathParams: ["42"]}, {}).body.name;`
	res := run(t, snap.For(config.ScriptService), src, func(o *Options) { o.Mock = m })
	jsonEqual(t, mustReturn(t, res), `"Ann"`)
	if c := res.Calls[0]; c.URL != "https://crm.example.com/api/v2/customers/42" {
		t.Errorf("url %s", c.URL)
	}
	// scriptTask reads the handlers' file: crm-customers does not exist there.
	res = run(t, snap.For(config.ScriptTask), src, func(o *Options) { o.Mock = m })
	if e := res.Error; e == nil || e.Code != "unknown-service" || !strings.Contains(e.Message, "scriptTask") {
		t.Fatalf("scriptTask: %+v", res.Error)
	}
	res = run(t, snap.For(config.ScriptTask), `return api.rest.v1.post("archive-cases", {pathParams: ["2026", "7"]}, {}, {}).status.code;`, func(o *Options) { o.Mock = m })
	jsonEqual(t, mustReturn(t, res), `201`)
	// No fixture: a clear error.
	res = run(t, snap.For(config.ScriptService), `api.rest.v1.delete("crm-customers", {pathParams: ["42"]}, {});`, func(o *Options) { o.Mock = m })
	if e := res.Error; e == nil || e.Code != "no-fixture" || !strings.Contains(e.Message, `no fixture in mocks.yaml answers DELETE crm-customers path "42"`) {
		t.Fatalf("no fixture: %+v", res.Error)
	}
	// A fixture's delay counts against the read timeout (5 s against
	// 50 ms: on a loaded machine both timers can be due by the time the
	// call runs again, and 300 ms was once not enough to tell them apart).
	res = run(t, snap.For(config.ScriptService), `api.rest.v1.get("geo", {}, {}, {readTimeout: 50});`, func(o *Options) { o.Mock = m })
	if e := res.Error; e == nil || e.Code != "read-timeout" {
		t.Fatalf("mock delay: %+v", res.Error)
	}
	// OAuth services are answered without a token request.
	m2 := mock(t, `[{serviceId: payments, body: {ok: true}}]`)
	res = run(t, snap.For(config.ScriptService), `return api.rest.v1.get("payments", {}, {}).body.ok;`, func(o *Options) { o.Mock = m2 })
	jsonEqual(t, mustReturn(t, res), `true`)
	// The preview shows the masked token and why none was requested.
	checkPreview(t, "mock-oauth", res, nil)
}
