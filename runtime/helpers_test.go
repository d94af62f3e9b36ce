package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mccutchen/go-httpbin/v2/httpbin"

	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/restclient"
)

func httpbinServer(t testing.TB) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(httpbin.New().Handler())
	t.Cleanup(srv.Close)
	return srv
}

// registryXML loads a service XML through the real config loader.
func registryXML(t testing.TB, xml string) *config.Registry {
	t.Helper()
	read := func(p string) ([]byte, error) {
		if p == "/cfg/services.xml" {
			return []byte(xml), nil
		}
		return nil, fs.ErrNotExist
	}
	reg := config.LoadWith(config.Sources{ServiceXML: "/cfg/services.xml"}, read).For(config.ScriptService)
	for _, d := range reg.Diagnostics {
		if d.Severity == config.SeverityError {
			t.Fatalf("config: %s", d)
		}
	}
	return reg
}

func binRegistry(t testing.TB, url string) *config.Registry {
	return registryXML(t, fmt.Sprintf(`<scriptservice>
  <api serviceId="bin" url=%q/>
  <api serviceId="bin-basic" url=%q><authorization type="basic"><encodedCredentials>dXNlcjpiMW4tUGFzc3dvcmQ=</encodedCredentials></authorization></api>
</scriptservice>`, url, url+"/anything"))
}

func run(t testing.TB, reg *config.Registry, src string, mod ...func(*Options)) *Result {
	t.Helper()
	opts := Options{Source: src, Filename: "test.js", Registry: reg}
	for _, m := range mod {
		m(&opts)
	}
	return Run(context.Background(), opts)
}

func mustReturn(t testing.TB, res *Result) string {
	t.Helper()
	if res.Error != nil {
		t.Fatalf("script threw: %+v", *res.Error)
	}
	return string(res.Result)
}

func mock(t testing.TB, yaml string) *restclient.Mock {
	t.Helper()
	m, err := restclient.ParseMock("mocks.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func jsonEqual(t testing.TB, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("got %q: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %q: %v", want, err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("got %s\nwant %s", gb, wb)
	}
}

// lines joins script lines, so tests can say which line holds what.
func lines(l ...string) string { return strings.Join(l, "\n") }
