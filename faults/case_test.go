package faults_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/faults"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/scripttest"
	"github.com/restls/restls/workspace"
)

// TestCaseOfPasses: the case of every finding (faults.CaseOf, what the
// editor's quick fix writes), for scripts with each kind of defect and a
// correct one, makes a test file that restls test reads and passes: the
// case's fixture gives the outcome, its expectation what the script did,
// input included.
func TestCaseOfPasses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	xml := write("services.xml", `<scriptservice><api serviceId="crm" url="http://127.0.0.1:1/api"/></scriptservice>`)
	write("s.mock.yaml", "- {serviceId: crm, body: {n: 1}}\n")
	snap := workspace.NewSnapshot(config.Load(config.Sources{ServiceXML: xml}), nil, nil, nil, nil, nil)
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	for i, text := range []string{
		// unchecked e.status.code: crashes; a 404 handled, 500 escapes
		"try {\n  return api.rest.v1.get(\"crm\", {pathParams: [context.input.id]}, {}).body.n;\n} catch (e) {\n  if (e.status.code === 404) return null;\n  throw e;\n}",
		// a RestClientError taken for a 404: misread
		"try {\n  return api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {}).body.n;\n} catch (e) {\n  if (e.status && e.status.code === 500) throw new Error(\"down\");\n  return {missing: true, why: \"<none>\"};\n}",
		// two sites, correct
		"var a = api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {});\ntry { api.rest.v1.post(\"crm\", {}, {}, {x: 1}); } catch (e) { return \"no post\"; }\nreturn a.body.n;",
	} {
		name := filepath.Base(write("s"+string(rune('0'+i))+".js", text))
		req := engine.Request{Path: filepath.Join(dir, name), Name: name, Text: text, Input: []byte(`{"id": "42"}`)}
		base, err := restclient.LoadMock(filepath.Join(dir, "s.mock.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := faults.Explore(context.Background(), eng.Run, snap, req, base, faults.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString("script: " + name + "\nfixtures: s.mock.yaml\ncases:\n")
		for _, f := range rep.Findings {
			if f.Verdict == faults.Unanswered {
				continue
			}
			b.WriteString(faults.CaseOf(rep, f).YAML("  ", req.Input))
		}
		test := write(strings.TrimSuffix(name, ".js")+".test.yaml", b.String())
		out, err := scripttest.Run(context.Background(), scripttest.Options{Paths: []string{test}, Snapshot: snap, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if out.Failed > 0 || out.Passed != len(rep.Findings) || out.Passed == 0 {
			var why []string
			for _, o := range out.Outcomes {
				if !o.Passed {
					why = append(why, o.Name+": "+strings.Join(o.Failures, "; "))
				}
			}
			t.Errorf("%s: %d passed, %d failed of %d findings:\n%s\n%s", name, out.Passed, out.Failed, len(rep.Findings), b.String(), strings.Join(why, "\n"))
		}
	}
}
