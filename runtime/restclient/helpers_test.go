package restclient

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mccutchen/go-httpbin/v2/httpbin"

	"github.com/restls/restls/config"
)

// httpbinServer starts go-httpbin on loopback.
func httpbinServer(t testing.TB) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(httpbin.New().Handler())
	t.Cleanup(srv.Close)
	return srv
}

// loadRegistry loads a service XML (and optional platform config) through
// the real config loader, from memory.
func loadRegistry(t testing.TB, kind config.Kind, serviceXML string) *config.Registry {
	t.Helper()
	files := map[string]string{"/cfg/services.xml": serviceXML}
	read := func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist
	}
	snap := config.LoadWith(config.Sources{ServiceXML: "/cfg/services.xml", HandlerXML: "/cfg/services.xml"}, read)
	reg := snap.For(kind)
	for _, d := range reg.Diagnostics {
		if d.Severity == config.SeverityError {
			t.Fatalf("config: %s", d)
		}
	}
	return reg
}

// servicesXML renders <api> elements; attrs maps serviceId to url and
// inner is extra XML (authorization, oAuth definitions).
func servicesXML(apis ...string) string {
	return "<scriptservice>\n" + strings.Join(apis, "\n") + "\n</scriptservice>"
}

func api(id, url string, auth string) string {
	if auth == "" {
		return fmt.Sprintf(`<api serviceId=%q url=%q/>`, id, url)
	}
	return fmt.Sprintf(`<api serviceId=%q url=%q>%s</api>`, id, url, auth)
}

func basicAuth(enc string) string {
	return fmt.Sprintf(`<authorization type="basic"><encodedCredentials>%s</encodedCredentials></authorization>`, enc)
}

func oauthRef(id string) string {
	return fmt.Sprintf(`<authorization type="oAuth"><id>%s</id></authorization>`, id)
}

func do(t testing.TB, s *Session, r *Request) (*Response, *Call, error) {
	t.Helper()
	if r.Method == "" {
		r.Method = http.MethodGet
	}
	return s.Do(context.Background(), r)
}

func wantCode(t testing.TB, err error, code string) *Error {
	t.Helper()
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("err = %T %v, want *Error with code %s", err, err, code)
	}
	if e.Code != code {
		t.Fatalf("code = %s (%s), want %s", e.Code, e.Message, code)
	}
	return e
}
