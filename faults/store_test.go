package faults_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/faults"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// TestExploreReadsTheSessionStore: an exploration takes the documented
// statuses from the store that checks its snapshot's runs' answers (the
// session's), so a description is fetched once for the runs and the
// exploration. The explorer once loaded its own copy beside the
// session's (serve kept a third store for it), fetching each
// description again.
func TestExploreReadsTheSessionStore(t *testing.T) {
	t.Parallel()
	var gets atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gets.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"openapi":"3.1.0","info":{"title":"crm","version":"1"},"paths":{"/customers/{id}":{"get":{"responses":{
			"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object"}}}},
			"409":{"description":"locked","content":{"application/json":{"schema":{"type":"object"},"example":{"locked":true}}}}}}}}}`))
	}))
	defer api.Close()
	xml := filepath.Join(t.TempDir(), "services.xml")
	if err := os.WriteFile(xml, []byte(`<scriptservice><api serviceId="crm" url="http://127.0.0.1:1/api"/></scriptservice>`), 0o600); err != nil {
		t.Fatal(err)
	}
	sess := workspace.NewSession(workspace.SessionOptions{Sources: config.Sources{ServiceXML: xml},
		APIs: []workspace.APISource{{ServiceID: "crm", Location: api.URL + "/crm.json"}}})
	base, err := restclient.ParseMock("s.mock.yaml", []byte("- {serviceId: crm, body: {name: Ada}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	text := "try {\n  return api.rest.v1.get(\"crm\", {pathParams: [\"customers\", \"42\"]}, {}).body.name;\n} catch (e) {\n  return \"unknown\";\n}\n"
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	rep, err := faults.Explore(context.Background(), eng.Run, sess.Snapshot(), engine.Request{Name: "s.js", Text: text}, base, faults.Options{Outcomes: []string{"409"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || !rep.Findings[0].Documented || len(rep.Notes) != 0 {
		t.Fatalf("want the documented 409 tried: %+v", rep)
	}
	if n := gets.Load(); n != 1 {
		t.Errorf("the description was fetched %d times for one exploration; want once, into the session's store", n)
	}
}
