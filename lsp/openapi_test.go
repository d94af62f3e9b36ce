package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/internal/cursortest"
	"github.com/restls/restls/internal/openapitest"
	"github.com/restls/restls/workspace"
)

func TestOpenAPISettingProblem(t *testing.T) {
	t.Parallel()
	if _, problems := parseSettings([]byte(`{"openapi": 3}`)); len(problems) != 1 || !strings.Contains(problems[0], "restls.openapi") {
		t.Errorf("problems = %q", problems)
	}
}

// waitAPIs waits for a status in which no description is loading.
func waitAPIs(c *testClient) Status {
	c.waitFor("API descriptions loaded", func() bool {
		if len(c.statuses) == 0 {
			return false
		}
		st := c.statuses[len(c.statuses)-1]
		for _, a := range st.OpenAPI {
			if a.State == "loading" {
				return false
			}
		}
		return len(st.OpenAPI) > 0
	})
	return c.lastStatus()
}

// A description that does not parse gets a diagnostic on its own file and
// a failed state in restls/status; fixing it and reloading brings the
// hints.
func TestBrokenDescription(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.test/api\n",
		"shop.json":              "{\"openapi\": \"3.0.0\",\n \"paths\": {\"/orders\": {\"get\": {}}},\n \"x\": [1, }\n",
	})
	desc := filepath.Join(dir, "shop.json")
	srv := newTestServer(t, Options{PollInterval: -1, Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}, OpenAPI: []workspace.APISource{{ServiceID: "shop", Location: desc}}})
	c := connect(t, srv, clientOptions{root: dir})
	st := waitAPIs(c)
	if a := st.OpenAPI[0]; a.State != "failed" || !strings.Contains(a.Error, "shop.json") || a.ServiceID != "shop" {
		t.Fatalf("status = %+v", a)
	}
	diags := c.diagnostics(uri.File(desc), 0, 0)
	if len(diags) != 1 || diags[0].Code != protocol.String(workspace.CodeOpenAPIBroken) || diags[0].Range.Start.Line != 2 {
		t.Fatalf("diagnostics on the description = %+v", diags)
	}
	text, cur := cursortest.Split(t, `api.rest.v1.get("shop", {pathParams: [|]}, {});`)
	u := uri.File(filepath.Join(dir, "a.js"))
	c.open(u, text)
	m := newMapper(text)
	if got := labels(c.completion(u, m.position(cur))); len(got) != 0 {
		t.Errorf("completion with a broken description = %q", got)
	}
	os.WriteFile(desc, []byte(`{"openapi": "3.0.0", "paths": {"/orders": {"get": {}}}}`), 0o644)
	// The file's modification time may not change within the
	// filesystem's resolution: make it differ.
	later := time.Now().Add(time.Second)
	os.Chtimes(desc, later, later)
	n := len(c.statuses)
	srv.Session().Reload()
	c.waitFor("status after reload", func() bool {
		return len(c.statuses) > n && c.statuses[len(c.statuses)-1].OpenAPI[0].State == "loaded"
	})
	if got := labels(c.completion(u, m.position(cur))); !slices.Equal(got, []string{"orders"}) {
		t.Errorf("completion after the fix = %q", got)
	}
	if d := c.diagnostics(uri.File(desc), 0, 0); len(d) != 0 {
		t.Errorf("diagnostics after the fix = %+v", d)
	}
}

// GitHub's own description through the server: issue 17's acceptance.
func TestGitHubThroughServer(t *testing.T) {
	t.Parallel()
	desc := openapitest.GitHub(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: github\n      url: https://api.github.com\n",
	})
	srv := newTestServer(t, Options{PollInterval: -1, Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}, OpenAPI: []workspace.APISource{{Location: desc}}})
	c := connect(t, srv, clientOptions{root: dir})
	st := waitAPIs(c)
	if a := st.OpenAPI[0]; a.State != "loaded" || !slices.Contains(a.Services, "github") {
		t.Fatalf("status = %+v", a)
	}
	for i, tc := range []struct {
		src  string
		want []string
	}{
		{`var o = "o", r = "r"; api.rest.v1.get("github", {pathParams: ["repos", o, r, |]}, {});`, []string{"issues", "pulls"}},
		{"var o = \"o\", r = \"r\";\nvar x = api.rest.v1.get(\"github\", {pathParams: [\"repos\", o, r]}, {});\nx.body.|", []string{"full_name", "stargazers_count"}},
	} {
		text, cur := cursortest.Split(t, tc.src)
		u := uri.File(filepath.Join(dir, fmt.Sprintf("c%d.js", i)))
		c.open(u, text)
		got := labels(c.completion(u, newMapper(text).position(cur)))
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: completion lacks %q (%d items)", tc.src, w, len(got))
			}
		}
	}
	u := uri.File(filepath.Join(dir, "b.js"))
	c.open(u, `api.rest.v1.get("github", {pathParams: ["repoz"]}, {});`)
	diags := c.diagnostics(u, 0, 0)
	if len(diags) != 1 || diags[0].Code != protocol.String("openapi-unknown-path") {
		t.Errorf("diagnostics = %+v", diags)
	}
}

// APIServices (the HTTP backend's "api": true) names the services with a
// loaded description, including those that use it by reference.
func TestAPIServices(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shop, err := os.ReadFile("../openapi/testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.test/api\n    - serviceId: shop-orders\n      url: shop/orders\n    - serviceId: other\n      url: https://other.example.test\n",
		"shop.yaml":              string(shop),
	})
	srv := newTestServer(t, Options{PollInterval: -1, Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")},
		OpenAPI: []workspace.APISource{{Location: filepath.Join(dir, "shop.yaml")}}})
	loaded := make(chan struct{})
	srv.ws.Descriptions().OnLoaded(func() { close(loaded) })
	reg := srv.Session().Registry().Get().For(config.ScriptService)
	got, before := srv.Session().APIServices(reg)
	if got != nil {
		t.Fatalf("before the load: %v", got)
	}
	<-loaded
	got, after := srv.Session().APIServices(reg)
	if len(got) != 2 || !got["shop"] || !got["shop-orders"] {
		t.Errorf("APIServices = %v", got)
	}
	if after == before {
		t.Errorf("the generation stayed %d across a load: /v1/services would keep its answer", after)
	}
	if again, gen := srv.Session().APIServices(reg); gen != after || len(again) != 2 {
		t.Errorf("asked again: %v, generation %d (was %d)", again, gen, after)
	}
}

// A session that may not attach descriptions (a designer page's /lsp) has
// its "openapi" setting and the fixtures beside its scripts ignored, and
// restls/status says why: the server would read files or fetch addresses
// any client names.
func TestOpenAPISettingRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shop, err := os.ReadFile("../openapi/testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.test/api\n",
		"shop.yaml":              string(shop),
		"a.mock.yaml":            "- {serviceId: shop, path: x, body: {secret: 1}}\n",
	})
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}})
	c := connect(t, srv, clientOptions{root: dir, session: &SessionOptions{},
		initOptions: map[string]any{"openapi": map[string]string{"shop": filepath.Join(dir, "shop.yaml")}}})
	st := waitAPIs(c)
	if len(st.OpenAPI) != 1 || st.OpenAPI[0].State != "refused" {
		t.Fatalf("status = %+v", st.OpenAPI)
	}
	u := uri.File(filepath.Join(dir, "a.js"))
	text := "var r = api.rest.v1.get(\"shop\", {pathParams: [\"x\"]}, {});\nr.body."
	c.open(u, text)
	m := newMapper(text)
	if got := labels(c.completion(u, m.position(len(text)))); len(got) != 0 {
		t.Errorf("completion = %q", got)
	}
}
