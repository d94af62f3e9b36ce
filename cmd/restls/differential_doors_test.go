package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"regexp"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"golang.org/x/tools/txtar"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// TestDoorsAgree is the differential test of issue 34's acceptance: one
// corpus of scripts through the four doors of a dry run, all through the
// real binary, as their users drive them:
//
//   - the editor: restls.runScript on restls serve --stdio, the script
//     open by its absolute file URI, mock and record by absolute path;
//   - the designer: POST /v1/run on restls serve --http --allow-run, the
//     script's text and the fixtures' text in the body (it has no files);
//   - restls run --json, from the project's directory, the script, --mock,
//     --record and --input by project-relative paths (as in CI);
//   - restls test --json, from the project's directory: one test file per
//     run beside the script, naming the script, kind, input and fixtures
//     and expecting nothing (so it reports whatever happened).
//
// The corpus is every script of every marker archive (lsp/testdata/*.txt,
// as TestSurfacesAgreeOnArchives writes them out: configuration, kind map
// and API descriptions), each answered by the fixtures beside it or by an
// empty fixtures file, and a project of scenarios: fixtures that answer
// (replay), a recording against a loopback server, a thrown Error, the
// contract's exception (a non-2XX status, caught and uncaught),
// RestClientError (unknown serviceId, no fixture), a timeout, answers that
// break their OpenAPI description, an explicit kind against the script's
// "// restls-kind:" line, a fixtures file with an unknown key. Nothing
// leaves the machine.
//
// Compared, per run: the result, the calls, the logs, the error, each
// call's contract notes, the kind and the mode; or, when a door refuses to
// run, that it refused (restls run's exit 2, a 400, a JSON-RPC error, a
// test file reported malformed) and its message. They must be identical
// after doorsNormalise, which takes out only what must differ (see its
// comment and docs/decisions.md), with no exception.
func TestDoorsAgree(t *testing.T) {
	// Independent of every other test (its own files and processes).
	t.Parallel()
	root := repoRoot(t)
	var projects []*doorsProject
	archives, _ := filepath.Glob(filepath.Join(root, "lsp/testdata/*.txt"))
	if len(archives) < 10 {
		t.Fatalf("%d marker archives; want every lsp/testdata/*.txt", len(archives))
	}
	for _, a := range archives {
		if filepath.Base(a) == "no_config.txt" {
			// Its configuration root does not exist: serve --http, run
			// and test refuse to start (a CI job in the wrong directory
			// must fail), so no door but the editor has a run to compare.
			continue
		}
		if p := archiveDoorsProject(t, a); p != nil {
			projects = append(projects, p)
		}
	}
	// The timeout scenario: the scenarios' files in a directory of their
	// own, with a short timeout.
	spin := scenarioDoorsProject(t)
	spin.name, spin.timeout = "scenarios-timeout", doorsSpinTimeout
	spin.cases = []*doorsCase{{name: "timeout", script: "scripts/timeout.js", fixtures: "scripts/empty.fixtures.yaml", wantCode: "script-timeout"}}
	projects = append(projects, scenarioDoorsProject(t), spin, profileDoorsProject(t))
	runs := 0
	for _, p := range projects {
		t.Run(p.name, func(t *testing.T) {
			answers := p.run(t)
			for _, c := range p.cases {
				runs++
				t.Run(c.name, func(t *testing.T) {
					got := answers[c]
					for _, d := range doors {
						for _, f := range got[d].problems {
							t.Errorf("%s: %s", d, f)
						}
					}
					want := got[doorEditor].v
					if b, _ := json.Marshal(want); c.wantCode != "" && !strings.Contains(string(b), `"code":"`+c.wantCode+`"`) {
						t.Errorf("%s: want the error code %s, got %s", doorEditor, c.wantCode, b)
					}
					for _, d := range doors[1:] {
						for _, diff := range jsonDiff("", want, got[d].v) {
							t.Errorf("%s answers differently from %s: %s", d, doorEditor, diff)
						}
					}
					if t.Failed() && testing.Verbose() {
						for _, d := range doors {
							b, _ := json.MarshalIndent(got[d].v, "", "  ")
							t.Logf("%s:\n%s", d, b)
						}
					}
				})
			}
		})
	}
	if runs < 40 {
		t.Errorf("the corpus ran %d scripts; want every marker archive's and the scenarios", runs)
	}
}

// The four doors, in the order compared: each is held to the first.
const (
	doorEditor   = "restls.runScript"
	doorDesigner = "POST /v1/run"
	doorRun      = "restls run --json"
	doorTest     = "restls test --json"
)

var doors = []string{doorEditor, doorDesigner, doorRun, doorTest}

// doorsTimeout bounds every run in every door (serve's --run-timeout,
// run's and test's --timeout), room for a run on a loaded machine.
const doorsTimeout = "3s"

// doorsSpinTimeout bounds the runs of the timeout scenario, a project of
// its own: its script spins until stopped, four times (one a door), and
// at doorsTimeout that was 12 s of CPU, the most of any one case.
const doorsSpinTimeout = "500ms"

// doorsProject is a directory with a restls.yaml and the runs to make in
// it.
type doorsProject struct {
	name string
	dir  string
	// flags are given to every door's command after --project (the
	// settings' --openapi list, which restls.yaml has no form for).
	flags []string
	cases []*doorsCase
	// kinds is restls.yaml's scriptKinds.
	kinds config.KindMap
	// timeout is every door's run timeout; "" is doorsTimeout.
	timeout string
}

// runTimeout is the run timeout every door is given in p.
func (p *doorsProject) runTimeout() string {
	if p.timeout != "" {
		return p.timeout
	}
	return doorsTimeout
}

// doorsCase is one run: a script with its kind, input and fixtures.
type doorsCase struct {
	name string
	// script, fixtures and record are relative to the project's directory
	// (slash-separated); fixtures "" runs live.
	script   string
	kind     string // explicit; "" lets the kind rule decide
	input    string // JSON; "" for none
	fixtures string
	// record runs live and records the answers (to a file of each door's
	// own, or in the designer's answer); restls test, which cannot
	// record, runs it --live.
	record bool

	inputFile string // input, written out for restls run --input
	// wantCode, when set, is the error code every door must answer with
	// (the engine profile's refusal).
	wantCode string
}

// archiveDoorsProject is archive a written out as a project
// (writeArchiveProject), each of its scripts a case answered by the
// fixtures beside it (NAME.mock.yaml) or by an empty fixtures file.
func archiveDoorsProject(t *testing.T, a string) *doorsProject {
	t.Helper()
	ap := writeArchiveProject(t, a)
	if len(ap.scripts) == 0 {
		return nil
	}
	p := &doorsProject{name: filepath.Base(a), dir: ap.dir, flags: ap.openapiFlags}
	proj, err := workspace.LoadProject(ap.file)
	if err != nil {
		t.Fatal(err)
	}
	p.kinds = proj.ScriptKinds
	writeFile(t, p.dir, "no-answers.yaml", "[]\n")
	for _, f := range ap.scripts {
		rel := filepath.ToSlash(mustRel(t, p.dir, f))
		c := &doorsCase{name: rel, script: rel, fixtures: "no-answers.yaml"}
		beside := strings.TrimSuffix(f, ".js") + ".mock.yaml"
		if _, err := os.Stat(beside); err == nil {
			c.fixtures = filepath.ToSlash(mustRel(t, p.dir, beside))
		}
		p.cases = append(p.cases, c)
	}
	return p
}

func mustRel(t *testing.T, base, p string) string {
	t.Helper()
	rel, err := filepath.Rel(base, p)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// doorsScenarios are the scenario project's files (a txtar archive):
// configuration, an API description, scripts and their fixtures. LIVE is
// replaced by the loopback server's address.
const doorsScenarios = `
-- restls.yaml --
configRoot: config
openapi:
  crm: crm.yaml
-- config/application.yml --
scriptservice:
  api:
    - serviceId: crm
      url: http://127.0.0.1:9/crm
    - serviceId: live
      url: LIVE/live
-- crm.yaml --
openapi: 3.0.3
info: {title: crm, version: "1"}
servers: [{url: "http://127.0.0.1:9/crm"}]
paths:
  /customers/{id}:
    get:
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: the customer
          content:
            application/json:
              schema:
                type: object
                required: [id, name]
                properties:
                  id: {type: integer}
                  name: {type: string}
        "404":
          description: no such customer
-- scripts/replay.js --
console.log("looking up", context.input.id);
var c = api.rest.v1.get("crm", {pathParams: ["customers", context.input.id]}, {});
console.warn("found", c.body.name);
var o = api.rest.v1.post("crm", {pathParams: ["orders"]}, {}, {customer: c.body.id, items: [1, 2]});
return {name: c.body.name, order: o.body.id, status: o.status.code};
-- scripts/replay.fixtures.yaml --
- serviceId: crm
  method: GET
  path: customers/7
  body: {id: 7, name: Ann}
- serviceId: crm
  method: POST
  path: orders
  status: 201
  body: {id: 9001}
-- scripts/throws.js --
console.info("about to fail");
throw new Error("boom: " + context.input.why);
-- scripts/response-error.js --
var caught;
try {
  api.rest.v1.get("crm", {pathParams: ["customers", "404"]}, {});
} catch (e) {
  caught = e.status.code + " " + e.body;
}
console.log("caught", caught);
api.rest.v1.get("crm", {pathParams: ["customers", "500"]}, {});
return caught;
-- scripts/response-error.fixtures.yaml --
- serviceId: crm
  path: customers/404
  status: 404
  bodyText: '{"error":"none"}'
- serviceId: crm
  path: customers/500
  status: 500
  bodyText: 'down for maintenance'
-- scripts/unknown-service.js --
try {
  api.rest.v1.get("nowhere", {}, {});
} catch (e) {
  console.error(e.name, e.code);
}
return api.rest.v1.get("nowhere-either", {}, {}).body;
-- scripts/no-fixture.js --
var c = api.rest.v1.get("crm", {pathParams: ["customers", "1"]}, {});
return c.body;
-- scripts/timeout.js --
console.log("spinning");
while (true) {}
-- scripts/contract.js --
var a = api.rest.v1.get("crm", {pathParams: ["customers", "1"]}, {});
var b = api.rest.v1.get("crm", {pathParams: ["customers", "2"]}, {});
return [a.body, b.status.code];
-- scripts/contract.fixtures.yaml --
- serviceId: crm
  path: customers/1
  body: {id: "one"}
- serviceId: crm
  path: customers/2
  status: 202
  body: {id: 2, name: Bo}
-- scripts/kind.js --
// restls-kind: scriptTask
return "ran";
-- scripts/unknown-key.js --
return api.rest.v1.get("crm", {pathParams: ["customers", "1"]}, {}).body;
-- scripts/unknown-key.fixtures.yaml --
- serviceId: crm
  path: customers/1
  bodyy: {id: 1}
-- scripts/record.js --
var r = api.rest.v1.get("live", {pathParams: ["things", "3"]}, {});
console.log("status", r.status.code);
return r.body;
-- scripts/empty.fixtures.yaml --
[]
`

// scenarioDoorsProject writes doorsScenarios out, with a loopback server
// for the recording that answers the same every time (no Date header).
func scenarioDoorsProject(t *testing.T) *doorsProject {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Date"] = nil
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"path": %q, "n": 3}`, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	p := &doorsProject{name: "scenarios", dir: t.TempDir()}
	for _, f := range txtar.Parse([]byte(strings.ReplaceAll(doorsScenarios, "LIVE", srv.URL))).Files {
		path := filepath.Join(p.dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p.cases = []*doorsCase{
		{name: "replay", script: "scripts/replay.js", input: `{"id": "7"}`, fixtures: "scripts/replay.fixtures.yaml"},
		{name: "record", script: "scripts/record.js", record: true},
		{name: "throw", script: "scripts/throws.js", input: `{"why": "on purpose"}`, fixtures: "scripts/empty.fixtures.yaml"},
		{name: "response-error", script: "scripts/response-error.js", fixtures: "scripts/response-error.fixtures.yaml"},
		{name: "unknown-service", script: "scripts/unknown-service.js", fixtures: "scripts/empty.fixtures.yaml"},
		{name: "no-fixture", script: "scripts/no-fixture.js", fixtures: "scripts/empty.fixtures.yaml"},
		{name: "contract", script: "scripts/contract.js", fixtures: "scripts/contract.fixtures.yaml"},
		{name: "kind-directive", script: "scripts/kind.js", fixtures: "scripts/empty.fixtures.yaml"},
		{name: "kind-explicit", script: "scripts/kind.js", kind: "validationScript", fixtures: "scripts/empty.fixtures.yaml"},
		{name: "fixtures-unknown-key", script: "scripts/unknown-key.js", fixtures: "scripts/unknown-key.fixtures.yaml"},
	}
	return p
}

// doorsProfile is a project whose restls.yaml names an engine level
// (issue 38): every door refuses the scripts beyond it with the same
// error, and runs the one within it.
const doorsProfile = `
-- restls.yaml --
configRoot: config
engine: es5.1
-- config/application.yml --
scriptservice:
  api:
    - serviceId: crm
      url: http://127.0.0.1:9/crm
-- scripts/arrow.js --
var ids = [1, 2];
console.log("never printed");
return ids.map(id => api.rest.v1.get("crm", {pathParams: ["customers", String(id)]}, {}).body);
-- scripts/builtin.js --
var c = api.rest.v1.get("crm", {pathParams: ["customers", "1"]}, {});
return Object.entries(c.body);
-- scripts/within.js --
var c = api.rest.v1.get("crm", {pathParams: ["customers", "1"]}, {});
return Object.keys(c.body);
-- scripts/customer.fixtures.yaml --
- serviceId: crm
  path: customers/1
  body: {id: 1, name: Ann}
`

// profileDoorsProject writes doorsProfile out.
func profileDoorsProject(t *testing.T) *doorsProject {
	t.Helper()
	p := &doorsProject{name: "engine-profile", dir: t.TempDir()}
	for _, f := range txtar.Parse([]byte(doorsProfile)).Files {
		dir := filepath.Join(p.dir, filepath.Dir(filepath.FromSlash(f.Name)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, filepath.Base(f.Name), string(f.Data))
	}
	p.cases = []*doorsCase{
		{name: "engine-syntax", script: "scripts/arrow.js", fixtures: "scripts/customer.fixtures.yaml", wantCode: "engine-syntax"},
		{name: "engine-builtin", script: "scripts/builtin.js", fixtures: "scripts/customer.fixtures.yaml", wantCode: "engine-builtin"},
		{name: "within", script: "scripts/within.js", fixtures: "scripts/customer.fixtures.yaml"},
	}
	return p
}

// run makes every case's run through every door: the two servers and the
// two commands of each door side by side.
func (p *doorsProject) run(t *testing.T) map[*doorsCase]map[string]doorAnswer {
	t.Helper()
	out := map[*doorsCase]map[string]doorAnswer{}
	for _, c := range p.cases {
		out[c] = map[string]doorAnswer{}
	}
	var mu sync.Mutex
	set := func(c *doorsCase, door string, v any) {
		mu.Lock()
		out[c][door] = doorsNormalise(p, c, door, v)
		mu.Unlock()
	}
	// What may fail the test at once is done here, in the test's
	// goroutine: the servers' start, the files the doors read.
	editor := startServe(t, nil, p.serveArgs()...)
	designer := startHTTP(t, nil, append(p.serveArgs(), "--allow-run")...)
	for _, c := range p.cases {
		if c.input != "" {
			c.inputFile = writeFile(t, t.TempDir(), "input.json", c.input)
		}
	}
	tests := p.writeTests(t)
	var wg sync.WaitGroup
	wg.Go(func() { p.runEditor(t, editor, set) })
	wg.Go(func() { p.runDesigner(t, designer, set) })
	wg.Go(func() { p.runRun(t, set) })
	wg.Go(func() { p.runTest(t, tests, set) })
	wg.Wait()
	return out
}

func (p *doorsProject) serveArgs() []string {
	return append([]string{"--project", filepath.Join(p.dir, "restls.yaml"), "--run-timeout", p.runTimeout()}, p.flags...)
}

// refused is a door's answer when it would not run: its message.
func refused(msg string) map[string]any {
	return map[string]any{"refused": strings.TrimSpace(msg)}
}

// runEditor runs each case with restls.runScript in one language server.
func (p *doorsProject) runEditor(t *testing.T, s *serverProcess, set func(*doorsCase, string, any)) {
	// An editor opens the project's folder.
	root := uri.File(p.dir)
	//lint:ignore SA1019 the test client sends rootUri as older clients do
	init := &protocol.InitializeParams{RootURI: &root}
	if err := s.call(t, protocol.MethodInitialize, init, nil); err != nil {
		t.Errorf("%s: initialize: %v", doorEditor, err)
		return
	}
	_ = s.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{})
	opened := map[string]bool{}
	for _, c := range p.cases {
		path := filepath.Join(p.dir, filepath.FromSlash(c.script))
		u := uri.File(path)
		if !opened[c.script] {
			opened[c.script] = true
			text, err := os.ReadFile(path)
			if err != nil {
				t.Error(err)
				return
			}
			_ = s.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
				TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "javascript", Version: 1, Text: string(text)},
			})
		}
		arg := map[string]any{"uri": string(u)}
		if c.kind != "" {
			arg["kind"] = c.kind
		}
		if c.input != "" {
			arg["input"] = json.RawMessage(c.input)
		}
		if c.record {
			arg["record"] = filepath.Join(p.dir, "recorded-editor.yaml")
		} else if c.fixtures != "" {
			arg["mock"] = filepath.Join(p.dir, filepath.FromSlash(c.fixtures))
		}
		raw, _ := json.Marshal(arg)
		var res map[string]any
		if err := s.call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "restls.runScript", Arguments: []protocol.LSPAny{raw}}, &res); err != nil {
			set(c, doorEditor, refused(err.Error()))
			continue
		}
		set(c, doorEditor, res)
	}
}

// runDesigner runs each case with POST /v1/run on one designer server.
func (p *doorsProject) runDesigner(t *testing.T, h *httpProcess, set func(*doorsCase, string, any)) {
	for _, c := range p.cases {
		text, err := os.ReadFile(filepath.Join(p.dir, filepath.FromSlash(c.script)))
		if err != nil {
			t.Error(err)
			return
		}
		body := map[string]any{"text": string(text)}
		if c.kind != "" {
			body["kind"] = c.kind
		} else if len(p.kinds) > 0 {
			// The designer knows no path for a kind map to place: its
			// kind selector shows the kind the project decides for the
			// file, as the page sends it.
			body["kind"] = string(p.kinds.KindOf(filepath.Join(p.dir, filepath.FromSlash(c.script)), string(text)))
		}
		if c.input != "" {
			body["input"] = json.RawMessage(c.input)
		}
		if c.record {
			body["record"] = true
		} else if c.fixtures != "" {
			fx, err := os.ReadFile(filepath.Join(p.dir, filepath.FromSlash(c.fixtures)))
			if err != nil {
				t.Error(err)
				return
			}
			body["mock"] = string(fx)
		}
		raw, _ := json.Marshal(body)
		res, err := http.Post(h.base+"/v1/run?access_token="+h.key, "application/json", bytes.NewReader(raw))
		if err != nil {
			t.Errorf("%s: %v", doorDesigner, err)
			continue
		}
		var answer map[string]any
		err = json.NewDecoder(res.Body).Decode(&answer)
		res.Body.Close()
		if err != nil {
			t.Errorf("%s %s: %d, %v", doorDesigner, c.name, res.StatusCode, err)
			continue
		}
		if res.StatusCode != http.StatusOK {
			msg, _ := answer["error"].(string)
			set(c, doorDesigner, refused(msg))
			continue
		}
		delete(answer, "fixtures") // the recording's document: the other doors write a file
		delete(answer, "fixtureNotes")
		set(c, doorDesigner, answer)
	}
}

// runRun runs each case with restls run --json from the project's
// directory.
func (p *doorsProject) runRun(t *testing.T, set func(*doorsCase, string, any)) {
	for i, c := range p.cases {
		args := append([]string{"run", "--json", "--project", "restls.yaml", "--timeout", p.runTimeout()}, p.flags...)
		if c.kind != "" {
			args = append(args, "--kind", c.kind)
		}
		if c.input != "" {
			args = append(args, "--input", c.inputFile)
		}
		if c.record {
			args = append(args, "--record", fmt.Sprintf("recorded-run-%d.yaml", i))
		} else if c.fixtures != "" {
			args = append(args, "--mock", c.fixtures)
		}
		cmd := restlsCommand(t, append(args, c.script)...)
		cmd.Dir = p.dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 2 {
			set(c, doorRun, refused(stderr.String()))
			continue
		} else if err != nil && !ok {
			t.Errorf("%s %s: %v", doorRun, c.name, err)
			continue
		}
		var res map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Errorf("%s %s: %v\n%s%s", doorRun, c.name, err, stdout.String(), stderr.String())
			continue
		}
		set(c, doorRun, res)
	}
}

// doorTests are the test files of restls test's door: by live or not,
// and the case of each.
type doorTests struct {
	files  map[bool][]string
	byFile map[string]*doorsCase
}

// writeTests writes one test file per case beside its script, expecting
// nothing.
func (p *doorsProject) writeTests(t *testing.T) doorTests {
	t.Helper()
	files := map[bool][]string{}
	byFile := map[string]*doorsCase{}
	for i, c := range p.cases {
		dir := filepath.Dir(filepath.FromSlash(c.script))
		var y strings.Builder
		fmt.Fprintf(&y, "script: %s\n", filepath.Base(c.script))
		if c.kind != "" {
			fmt.Fprintf(&y, "kind: %s\n", c.kind)
		}
		if c.input != "" {
			fmt.Fprintf(&y, "input: %s\n", c.input)
		}
		if c.fixtures != "" && !c.record {
			fmt.Fprintf(&y, "fixtures: %s\n", filepath.ToSlash(mustRel(t, dir, filepath.FromSlash(c.fixtures))))
		}
		name := filepath.Join(dir, fmt.Sprintf("door-%d.test.yaml", i))
		writeFile(t, p.dir, name, y.String())
		files[c.record] = append(files[c.record], name)
		byFile[name] = c
	}
	return doorTests{files, byFile}
}

// runTest runs each case as a restls test case: one restls test --json
// for the cases answered by fixtures and one --live for the recordings.
func (p *doorsProject) runTest(t *testing.T, dt doorTests, set func(*doorsCase, string, any)) {
	files, byFile := dt.files, dt.byFile
	for _, live := range []bool{false, true} {
		if len(files[live]) == 0 {
			continue
		}
		args := append([]string{"test", "--json", "--project", "restls.yaml", "--timeout", p.runTimeout()}, p.flags...)
		if live {
			args = append(args, "--live")
		}
		cmd := restlsCommand(t, append(args, files[live]...)...)
		cmd.Dir = p.dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 2 {
			for _, f := range files[live] {
				set(byFile[f], doorTest, refused(stderr.String()))
			}
			continue
		}
		var rep struct {
			Tests []map[string]any `json:"tests"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Errorf("%s: %v\n%s%s", doorTest, err, stdout.String(), stderr.String())
			continue
		}
		for _, o := range rep.Tests {
			f, _ := o["file"].(string)
			c := byFile[f]
			if c == nil {
				t.Errorf("%s reported a test of %q, which is none of the corpus's", doorTest, f)
				continue
			}
			if o["name"] == "(test file)" {
				var msgs []string
				for _, m := range o["failures"].([]any) {
					msgs = append(msgs, m.(string))
				}
				set(c, doorTest, refused(strings.Join(msgs, "\n")))
				continue
			}
			if c.record && o["mode"] == "live" {
				o["mode"] = "record" // restls test cannot record: --live is its recording run
			}
			set(c, doorTest, o)
		}
	}
}

// doorAnswer is one door's answer to one run, normalised, and what is
// wrong with it by itself.
type doorAnswer struct {
	v        any
	problems []string
}

// doorsNormalise keeps what the doors are compared on and takes out what
// must differ between them:
//
//   - durations (durationMs, timing phases);
//   - the designer's names for what it was sent as text: its script
//     "script.js" and its fixtures "pasted mocks" stand for the script's
//     and the fixtures' project-relative paths, which the other doors
//     were given (run and test as a CI job gives them, the editor as
//     absolute URIs);
//   - the project's directory, a temporary one, written $PROJECT in
//     whatever absolute path remains (an absolute path still differs from
//     a relative one);
//   - a no-fixture message's advice, what to do in that door (the
//     designer's Mocks tab, restls test's --live, run's --record): what
//     follows "a matching path and query". An advice that names restls
//     fixtures generate must name the script: a problem otherwise;
//   - a refusal's frame: restls run's "restls run: --mock: ", the
//     editor's "restls.runScript: ", the test file's "FILE:LINE:
//     fixtures: ", the designer's "; fix the fixture (...)"; what the
//     frame holds is compared;
//   - what only one door's output has besides the run: restls test's
//     outcome (file, name, line, passed, failures, script) and the
//     designer's recorded fixtures document.
//
// Everything else (result, error, calls with their contract notes, logs,
// kind, mode; or that the door refused, and why) is compared as it is.
func doorsNormalise(p *doorsProject, c *doorsCase, door string, v any) doorAnswer {
	m, _ := v.(map[string]any)
	if m == nil {
		return doorAnswer{v: v}
	}
	keep := map[string]any{}
	for _, k := range []string{"refused", "result", "error", "calls", "logs", "kind", "mode"} {
		if x, ok := m[k]; ok {
			keep[k] = x
		}
	}
	if r, ok := keep["refused"].(string); ok {
		keep["refused"] = refusalFrame.ReplaceAllString(r, "")
	}
	var names []string
	if door == doorDesigner {
		names = append(names, "script.js", c.script)
		if c.fixtures != "" {
			names = append(names, "pasted mocks", c.fixtures)
		}
	}
	names = append(names, p.dir+string(filepath.Separator), "$PROJECT/", p.dir, "$PROJECT")
	repl := strings.NewReplacer(names...)
	var problems []string
	out := walkJSON(keep, func(key string, x any) (any, bool) {
		switch key {
		case "durationMs", "timing":
			return nil, false
		}
		s, ok := x.(string)
		if !ok {
			return x, true
		}
		s = repl.Replace(s)
		for _, m := range generateAdvice.FindAllStringSubmatch(s, -1) {
			if m[1] != c.script {
				problems = append(problems, fmt.Sprintf("the advice says restls fixtures generate %s, not the script %s: %q", m[1], c.script, s))
			}
		}
		return noFixtureAdvice.ReplaceAllString(s, "$1 <advice>"), true
	})
	return doorAnswer{v: out, problems: slices.Compact(problems)}
}

var (
	// noFixtureAdvice is a no-fixture message's advice, after what it
	// describes.
	noFixtureAdvice = regexp.MustCompile(`(?s)(a matching path and query)\b.*$`)
	// generateAdvice is what an advice says to generate fixtures with.
	generateAdvice = regexp.MustCompile(`restls fixtures generate ([^\s)]+)`)
	// refusalFrame is each door's frame around the reason it refused.
	refusalFrame = regexp.MustCompile(`^(restls run: (--mock: )?|restls\.runScript: |\S+\.test\.yaml:\d+: fixtures: )|; fix the fixture \(.*\)$`)
)

// walkJSON rebuilds v with f applied to every member (key "" for array
// elements and the root); f returns false to drop a member.
func walkJSON(v any, f func(key string, x any) (any, bool)) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if e2, ok := f(k, e); ok {
				out[k] = walkJSON(e2, f)
			}
		}
		return out
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			e2, _ := f("", e)
			out = append(out, walkJSON(e2, f))
		}
		return out
	default:
		x2, _ := f("", x)
		return x2
	}
}

// jsonDiff lists where a and b differ, by JSON path: "path: a != b".
func jsonDiff(path string, a, b any) []string {
	show := func(v any) string {
		if v == nil {
			return "(absent)"
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		raw := bytes.TrimSpace(b.Bytes())
		if len(raw) > 400 {
			raw = append(raw[:400], "..."...)
		}
		return string(raw)
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		var keys []string
		for k := range am {
			keys = append(keys, k)
		}
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		var out []string
		for _, k := range keys {
			out = append(out, jsonDiff(path+"."+k, am[k], bm[k])...)
		}
		return out
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok && len(as) == len(bs) {
		var out []string
		for i := range as {
			out = append(out, jsonDiff(fmt.Sprintf("%s[%d]", path, i), as[i], bs[i])...)
		}
		return out
	}
	ra, _ := json.Marshal(a)
	rb, _ := json.Marshal(b)
	if bytes.Equal(ra, rb) {
		return nil
	}
	if path == "" {
		path = "."
	}
	return []string{fmt.Sprintf("%s: %s != %s", path, show(a), show(b))}
}
