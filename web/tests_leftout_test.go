package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/input"
	"github.com/restls/restls/internal/walktest"
)

// TestDesignerTestsLeftOutSaysNoServerPath: when the project index left
// files out (here its walk stopped at a directory deeper than it looks),
// the 404 of a script no test file it holds names says so, without the
// server's directories, which are none of the page's business (as in a
// test's failures), and in the designer's words: a test file past the
// bound is not found, restls test runs it.
func TestDesignerTestsLeftOutSaysNoServerPath(t *testing.T) {
	t.Parallel()
	root := testProject(t)
	walktest.Deep(t, root, input.MaxWalkDepth+2, "deep.test.yaml", "script: deep.js\nresult: 1\n")
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.Runner, o.TestRoot, o.Admit = eng.Run, root, eng.Admit
	})
	auth := map[string]string{"Authorization": "Bearer " + s.key}
	res, body := post(t, hs.URL+"/v1/test", testBodyOf(t, "scripts/none.js", "return 1;"), auth)
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("POST /v1/test of a script no test file names = %d %s; want 404", res.StatusCode, body)
	}
	if strings.Contains(body, root) {
		t.Errorf("the 404 names the server's directory %s: %s", root, body)
	}
	if !strings.Contains(body, "restls test") || !strings.Contains(body, "64 directories deep") {
		t.Errorf("the 404 does not say that the index stopped looking and what to do: %s", body)
	}
	// The editor sharing the index is still told, once, where its walk
	// stopped: the page's answer did not say it in the editor's place.
	sess := s.opts.Session
	pi, _, err := sess.ProjectIndex(root, sess.Registry(), sess.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	if msg := pi.WalkStopMessage(); msg == "" {
		t.Error("after the designer's request, the editor is never told where the project index's walk stopped")
	}
}
