package scripttest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/faults"
	"github.com/restls/restls/workspace"
)

// TestFaultsInTests (issue 36): a test file's faults key explores each
// case's error paths from its own run; the failing verdicts (the file's
// faults.fail) and faults.expect fail the case at the call's line,
// faults: false on a case keeps it out, restls test --faults explores a
// file that says nothing, and the file validates against the schema.
func TestFaultsInTests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// crm's address refuses: nothing may reach it.
	write("services.xml", `<scriptservice><api serviceId="crm" url="http://127.0.0.1:1/api"/></scriptservice>`)
	write("unchecked.js", "try {\n  return api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {}).body.n;\n} catch (e) {\n  if (e.status.code === 404) return null;\n  throw e;\n}\n")
	write("safe.js", "try {\n  return api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {}).body.n;\n} catch (e) {\n  return -1;\n}\n")
	write("unchecked.test.yaml", `script: unchecked.js
fixtures:
  - {serviceId: crm, body: {n: 1}}
faults:
  fail: [crashed]
  expect: {"404": handled}
cases:
  - name: answers
    result: 1
  - name: not explored
    faults: false
    result: 1
`)
	write("safe.test.yaml", `script: safe.js
fixtures:
  - {serviceId: crm, body: {n: 1}}
result: 1
`)
	for _, f := range []string{"unchecked.test.yaml", "safe.test.yaml"} {
		if err := compileSchema(t).Validate(yamlAsJSON(t, filepath.Join(dir, f))); err != nil {
			t.Errorf("%s does not validate: %v", f, err)
		}
	}
	snap := config.Load(config.Sources{ServiceXML: filepath.Join(dir, "services.xml")})
	rep, err := Run(context.Background(), Options{Paths: []string{dir}, Snapshot: workspace.Snapshot{Config: snap}, Faults: true})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Outcome{}
	for _, o := range rep.Outcomes {
		byName[o.Name] = o
	}
	answers, skipped, safe := byName["answers"], byName["not explored"], byName["safe.test.yaml"]
	if answers == nil || answers.Passed || answers.Faults == nil || answers.Faults.Count(faults.Crashed) != 4 || len(answers.Failures) != 4 {
		t.Fatalf("answers: %+v", answers)
	}
	if want := `faults: ` + filepath.Join(dir, "unchecked.js") + `:2 GET crm path "a" answered not-json: crashed: TypeError at line 4`; !strings.HasPrefix(answers.Failures[0], want) {
		t.Errorf("failure\n got %s\nwant %s...", answers.Failures[0], want)
	}
	if skipped == nil || !skipped.Passed || skipped.Faults != nil {
		t.Errorf("faults: false: %+v", skipped)
	}
	if safe == nil || !safe.Passed || safe.Faults == nil || safe.Faults.Count(faults.Handled) != 7 {
		t.Errorf("--faults on a file that says nothing: %+v", safe)
	}
	var text strings.Builder
	if err := WriteText(&text, rep, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "FAULTS "+filepath.Join(dir, "safe.test.yaml")+":1: safe.test.yaml\n  "+filepath.Join(dir, "safe.js")+": 1 call site, 7 runs, 7 handled\n") {
		t.Errorf("text:\n%s", text.String())
	}

	// expect: a verdict that differs fails whatever fail says.
	write("unchecked.test.yaml", strings.Replace(mustRead(t, filepath.Join(dir, "unchecked.test.yaml")), `expect: {"404": handled}`, `expect: {"404": escaped}`, 1))
	rep, err = Run(context.Background(), Options{Paths: []string{filepath.Join(dir, "unchecked.test.yaml")}, Snapshot: workspace.Snapshot{Config: snap}})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Outcomes[0].Failures; len(got) != 5 || !strings.Contains(strings.Join(got, "\n"), `answered 404: handled, expected escaped: returned null`) {
		t.Errorf("expect 404 escaped: %q", got)
	}
}

// TestFaultsUpdateAddsCases: restls test --faults --update adds a case
// per escaped or crashed outcome, with its fixture and what the script
// did, named after the call and the outcome, each saying faults: false;
// the next run passes them, and a second update adds none again.
func TestFaultsUpdateAddsCases(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("services.xml", `<scriptservice><api serviceId="crm" url="http://127.0.0.1:1/api"/></scriptservice>`)
	write("s.js", "try {\n  return api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {}).body.n;\n} catch (e) {\n  if (e.status.code === 404) return null;\n  throw e;\n}\n")
	file := filepath.Join(dir, "s.test.yaml")
	write("s.test.yaml", "script: s.js\nfixtures:\n  - {serviceId: crm, body: {n: 1}}\ncases:\n  - name: answers\n    result: 1\n")
	snap := config.Load(config.Sources{ServiceXML: filepath.Join(dir, "services.xml")})
	opts := Options{Paths: []string{file}, Snapshot: workspace.Snapshot{Config: snap}, Faults: true, Update: true, FaultsFail: []faults.Verdict{faults.Crashed}}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	// 2 escaped (500, 400) and 4 crashed outcomes: six cases added.
	if rep.Updated != 6 || len(rep.Outcomes) != 7 {
		t.Fatalf("%d updated, %d outcomes: %+v", rep.Updated, len(rep.Outcomes), rep.Outcomes)
	}
	text := mustRead(t, file)
	for _, want := range []string{
		"  - name: 'faults: GET crm a answers 500'\n    faults: false\n    fixtures:\n      - {serviceId: crm, method: GET, path: a, times: 1, status: 500, bodyText: Internal Server Error}\n    error:\n      status: 500\n",
		"  - name: 'faults: GET crm a answers read-timeout'\n    faults: false\n    fixtures:\n      - {serviceId: crm, method: GET, path: a, times: 1, fault: read-timeout}\n    error:\n      name: TypeError\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the file lacks\n%s\nit is\n%s", want, text)
		}
	}
	if o := rep.Outcomes[len(rep.Outcomes)-1]; o.Line == 0 || !o.Updated {
		t.Errorf("added case %+v: want its line", o)
	}
	if err := compileSchema(t).Validate(yamlAsJSON(t, file)); err != nil {
		t.Errorf("the updated file does not validate: %v", err)
	}
	opts.Update = false
	rep, err = Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed != 6 || rep.Failed != 1 {
		t.Errorf("after the update: %d passed, %d failed (the crashes of answers still fail it)", rep.Passed, rep.Failed)
	}
	opts.Update = true
	if rep, err = Run(context.Background(), opts); err != nil || rep.Updated != 0 {
		t.Errorf("a second update: %v, %d updated", err, rep.Updated)
	}
	// A file that is one case has no list to add to: it says so, and is
	// left as it was.
	single := filepath.Join(dir, "one.test.yaml")
	write("one.test.yaml", "script: s.js\nfixtures:\n  - {serviceId: crm, body: {n: 1}}\nresult: 1\n")
	opts.Paths = []string{single}
	rep, err = Run(context.Background(), opts)
	if err != nil || rep.Outcomes[0].Passed || !strings.Contains(strings.Join(rep.Outcomes[0].Failures, "\n"), "update: the file has no cases: list") ||
		mustRead(t, single) != "script: s.js\nfixtures:\n  - {serviceId: crm, body: {n: 1}}\nresult: 1\n" {
		t.Errorf("a single-case file: %v %+v\n%s", err, rep.Outcomes[0].Failures, mustRead(t, single))
	}
}

func mustRead(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
