package web

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/scripttest"
)

// TestDesignerTestFilesAsRestlsTest: POST /v1/test says of a test file
// what restls test says (scripttest.Load's message, which restls test
// prints as the file's "(test file)" failure), where it answered 404 "no
// test file" or ran something else:
//   - an absolute script: (/scripts/orders.js, meant from the project's
//     top) is refused with what to write instead; the index joined it to
//     the test file's directory (scripts/scripts/orders.js), so it tested
//     no script;
//   - a test file above the 4 MiB limit, which the index left out, is
//     named by its script: line and fails with restls test's read error.
func TestDesignerTestFilesAsRestlsTest(t *testing.T) {
	t.Parallel()
	root := testProject(t)
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil { // the repository's top
		t.Fatal(err)
	}
	abs := filepath.Join(root, "scripts", "top.test.yaml")
	if err := os.WriteFile(abs, []byte("script: /scripts/orders.js\nresult: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(root, "scripts", "huge.test.yaml")
	if err := os.WriteFile(huge, []byte("script: orders.js\n"+strings.Repeat("# padding\n", 1<<19)), 0o644); err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) { o.Runner, o.TestRoot, o.Admit = eng.Run, root, eng.Admit })
	auth := map[string]string{"Authorization": "Bearer " + s.key}
	res, body := post(t, hs.URL+"/v1/test", testBodyOf(t, "scripts/orders.js", ordersScript(t, root)), auth)
	var got testAnswer
	if err := json.Unmarshal([]byte(body), &got); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/test = %d %s; want 200", res.StatusCode, body)
	}
	for _, file := range []string{abs, huge} {
		_, err := scripttest.Load(file)
		if err == nil {
			t.Fatalf("restls test loads %s", file)
		}
		rel := s.projectPath(file)
		// The designer names files relative to the project, as it names
		// every failure.
		want := strings.ReplaceAll(err.Error(), root+string(filepath.Separator), "")
		i := slices.IndexFunc(got.Tests, func(c testCaseJSON) bool { return c.File == rel })
		if i < 0 {
			t.Errorf("%s is not run: %s", rel, body)
			continue
		}
		if c := got.Tests[i]; c.Name != "(test file)" || c.Passed || !slices.Equal(c.Failures, []string{want}) {
			t.Errorf("%s: %+v; want the (test file) failure %q", rel, c, want)
		}
	}
	if got.Failed != 2 || got.Passed != 3 || !slices.Equal(got.Files, []string{"scripts/huge.test.yaml", "scripts/orders.test.yaml", "scripts/top.test.yaml"}) {
		t.Errorf("answer %s; want the 3 cases of orders.test.yaml and the two files failing", body)
	}
}
