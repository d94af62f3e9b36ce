package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/internal/goldentest"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/dryrun/diff"
	"github.com/restls/restls/runtime/dryrun/history"
	"github.com/restls/restls/workspace"
)

// queueRunner answers each live run with the next result of its queue,
// and a run from a fixture file with fixtures.
type queueRunner struct {
	mu       sync.Mutex
	queue    []string
	fixtures string
	mocked   []string // the MockFile of each run from fixtures
}

func (q *queueRunner) run(_ context.Context, _ workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var raw string
	mode := dryrun.ModeLive
	if req.Fixtures.File != "" {
		q.mocked = append(q.mocked, req.Fixtures.File)
		raw, mode = q.fixtures, dryrun.ModeMock
	} else {
		raw, q.queue = q.queue[0], q.queue[1:]
	}
	var res dryrun.Result
	if err := json.Unmarshal([]byte(raw), &res); err != nil {
		return nil, err
	}
	res.Mode = mode
	if k := req.Keep; k != nil { // as the engine keeps it
		if err := k.Store.Add(history.NewEntry(k.Key, k.Source, &res)); err != nil {
			return nil, err
		}
	}
	return &res, nil
}

// liveRun is a run with one call of the registry service of
// testdata/config answering body.
func liveRun(status int, body string) string {
	return `{"result":` + body + `,"error":null,"logs":[],"calls":[{"serviceId":"registry","method":"GET",` +
		`"url":"https://registry.example.gov/api/companies/42?fields=name","requestHeaders":{},` +
		`"status":{"code":` + itoa(status) + `,"message":""},"responseHeaders":{"content-type":"application/json","date":"now"},` +
		`"responseBody":` + body + `,"durationMs":3,"events":[]}]}`
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func execCommand(c *testClient, command string, arg any, out any) error {
	return c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: command, Arguments: []protocol.LSPAny{mustJSON(arg)},
	}, out)
}

// TestHistoryCompareAndUpdate drives the history commands through a real
// JSON-RPC connection: runs are kept on disk per script, compared with
// the previous one and with the fixtures, and the last run's answers
// written into the fixture file.
func TestHistoryCompareAndUpdate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "config")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "testdata", "config"))); err != nil {
		t.Fatal(err)
	}
	store := &history.Dir{Root: filepath.Join(t.TempDir(), "history")}
	q := &queueRunner{
		queue:    []string{liveRun(200, `{"name":"ACME","n":1}`), liveRun(404, `{"name":"ACME","n":2}`)},
		fixtures: liveRun(200, `{"name":"Acme","n":1}`),
	}
	srv := newTestServer(t, Options{Runner: q.run, History: store})
	c := connect(t, srv, clientOptions{initOptions: map[string]any{"restls": map[string]any{"configRoot": dir}}})
	scripts := t.TempDir()
	doc := uri.File(filepath.Join(scripts, "companies.js"))
	c.open(doc, `return api.rest.v1.get("registry", {pathParams: ["companies", "42"], queryParams: {fields: "name"}});`)
	arg := map[string]any{"uri": string(doc)}

	var log strings.Builder
	step := func(name, command string) *CompareResult {
		var res CompareResult
		err := execCommand(c, command, arg, &res)
		log.WriteString(name + ":\n")
		if err != nil {
			log.WriteString("  error: " + strings.ReplaceAll(err.Error(), scripts, "$DIR") + "\n")
			return nil
		}
		if !strings.Contains(res.Text, "diff: the ") || !strings.Contains(res.Text, " → the last run (") {
			t.Errorf("%s: text %q", name, res.Text)
		}
		var b strings.Builder
		diff.Text(&b, res.Diff, "old ("+res.Old.Mode+")", "new ("+res.New.Mode+")")
		log.WriteString(strings.ReplaceAll(b.String(), scripts, "$DIR"))
		return &res
	}
	step("compare before any run", CommandCompareWithPrevious)
	if err := execRun(c, arg); err != nil {
		t.Fatal(err)
	}
	step("compare after one run", CommandCompareWithPrevious)
	step("fixtures before there is a fixture file", CommandCompareWithFixtures)
	if err := execRun(c, arg); err != nil {
		t.Fatal(err)
	}
	res := step("compare after two runs", CommandCompareWithPrevious)
	if res == nil || res.Diff.Same || res.Old.Time.IsZero() || !res.New.Time.After(res.Old.Time) && !res.New.Time.Equal(res.Old.Time) {
		t.Errorf("compare: %+v", res)
	}

	// Update the fixtures from the last run, then compare with them.
	var up UpdateFixturesResult
	if err := execCommand(c, CommandUpdateFixtures, arg, &up); err != nil {
		t.Fatal(err)
	}
	fixtureFile := filepath.Join(scripts, "companies.mock.yaml")
	if up.File != fixtureFile || up.Calls != 1 || up.Skipped != 0 {
		t.Errorf("update: %+v", up)
	}
	data, err := os.ReadFile(fixtureFile)
	if err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, "testdata/golden/history/companies.mock.yaml", string(data))
	step("compare with fixtures", CommandCompareWithFixtures)
	if len(q.mocked) != 1 || q.mocked[0] != fixtureFile {
		t.Errorf("fixture runs: %q", q.mocked)
	}
	goldentest.Check(t, "testdata/golden/history/commands.golden", log.String())

	// The runs are on disk, private, under the script's path.
	kept, err := store.Last(filepath.Join(scripts, "companies.js"), 10)
	if err != nil || len(kept) != 2 || kept[0].Source != history.SourceEditor {
		t.Fatalf("kept %d runs: %v", len(kept), err)
	}
}

// TestHistoryDesignerSession: a session that keeps its runs in memory
// writes nothing to the server's store and sees only its own runs; one
// that may not use files may not update fixtures.
func TestHistoryDesignerSession(t *testing.T) {
	t.Parallel()
	store := &history.Dir{Root: filepath.Join(t.TempDir(), "history")}
	q := &queueRunner{queue: []string{liveRun(200, `1`), liveRun(200, `2`), liveRun(200, `3`)}}
	srv := newTestServer(t, Options{Runner: q.run, History: store})
	designer := &SessionOptions{MayRun: true, HistoryInMemory: true, Refused: "the designer may not write files"}
	a := connect(t, srv, clientOptions{session: designer})
	b := connect(t, srv, clientOptions{session: designer})
	doc := uri.URI("untitled:designer.js")
	arg := map[string]any{"uri": string(doc)}
	for _, c := range []*testClient{a, b} {
		c.open(doc, "return 1")
	}
	for _, c := range []*testClient{a, a, b} {
		if err := execRun(c, arg); err != nil {
			t.Fatal(err)
		}
	}
	var res CompareResult
	if err := execCommand(a, CommandCompareWithPrevious, arg, &res); err != nil || len(res.Diff.Result) != 1 {
		t.Errorf("a: %+v %v", res.Diff, err)
	}
	if err := execCommand(b, CommandCompareWithPrevious, arg, &res); err == nil || !strings.Contains(err.Error(), "only one dry run") {
		t.Errorf("b sees a's runs: %v", err)
	}
	if _, err := os.Stat(store.Root); !os.IsNotExist(err) {
		t.Errorf("a designer session wrote to the disk store: %v", err)
	}
	var up UpdateFixturesResult
	if err := execCommand(a, CommandUpdateFixtures, arg, &up); err == nil || !strings.Contains(err.Error(), "the designer may not write files") {
		t.Errorf("update from a designer session: %v", err)
	}
}

// TestTimeoutBudgetDiagnostic: a call that came close to its read timeout
// in the script's last run gets an information diagnostic timeout-budget
// on each of its call sites; the next run without it takes it away.
func TestTimeoutBudgetDiagnostic(t *testing.T) {
	t.Parallel()
	slow := strings.Replace(liveRun(200, `1`), `"events":[]`, `"events":[{"kind":"timeout-budget","message":"the answer took 850 ms, 85% of the 1000 ms read timeout in force"}]`, 1)
	q := &queueRunner{queue: []string{slow, liveRun(200, `1`)}}
	srv := newTestServer(t, Options{Runner: q.run})
	c := connect(t, srv, clientOptions{})
	doc := uri.File(filepath.Join(t.TempDir(), "slow.js"))
	text := "var a = api.rest.v1.get(\"registry\", {}, {});\nvar b = api.rest.v1.post(\"registry\", {}, {}, {});\n"
	c.open(doc, text)
	c.diagnostics(doc, 0, 0)
	budget := func(ds []protocol.Diagnostic) []protocol.Diagnostic {
		var out []protocol.Diagnostic
		for _, d := range ds {
			if d.Code == protocol.String("timeout-budget") {
				out = append(out, d)
			}
		}
		return out
	}
	since := c.now()
	if err := execRun(c, map[string]any{"uri": string(doc)}); err != nil {
		t.Fatal(err)
	}
	got := budget(c.diagnostics(doc, 0, since+1))
	if len(got) != 1 || got[0].Severity != protocol.DiagnosticSeverityInformation || got[0].Range.Start.Line != 0 ||
		got[0].Message != protocol.String("in the last dry run, the answer took 850 ms, 85% of the 1000 ms read timeout in force") {
		t.Fatalf("diagnostics %+v", got)
	}
	since = c.now()
	if err := execRun(c, map[string]any{"uri": string(doc)}); err != nil {
		t.Fatal(err)
	}
	if got := budget(c.diagnostics(doc, 0, since+1)); len(got) != 0 {
		t.Errorf("after a quick run: %+v", got)
	}
}
