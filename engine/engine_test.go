package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/isolate"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// TestMain makes this test binary a dry run's child when started as one,
// so that Child runs here run the real child.
func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[1] == isolate.ChildArg {
		os.Exit(isolate.ChildMain(os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// project writes a configuration naming crm at url (on disk, so a child
// loads it too) and returns its snapshot with kinds as the kind map.
func project(t *testing.T, url string, kinds config.KindMap) workspace.Snapshot {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "services.xml")
	xml := `<scriptservice><api serviceId="crm" url="` + url + `"/></scriptservice>`
	if err := os.WriteFile(file, []byte(xml), 0o600); err != nil {
		t.Fatal(err)
	}
	return workspace.NewSnapshot(config.Load(config.Sources{ServiceXML: file}), kinds, nil, nil, nil, nil)
}

func inProcess(t *testing.T, o Options) *Engine {
	t.Helper()
	o.Isolation = InProcess
	return New(o)
}

// TestKindDecidedOnce: with no kind named, the kind rule decides on the
// snapshot's kind map (the script's directive first); a kind the user
// named wins over both, on every surface (docs/decisions.md).
func TestKindDecidedOnce(t *testing.T) {
	glob, err := input.FileGlob("**/tasks/**")
	if err != nil {
		t.Fatal(err)
	}
	snap := project(t, "http://127.0.0.1:1", config.KindMap{{Glob: glob, Kind: config.ScriptTask}})
	e := inProcess(t, Options{})
	for _, tc := range []struct {
		name, path, text string
		kind, want       config.Kind
	}{
		{"default", "/ws/a.js", "return 1;", "", config.ScriptService},
		{"map", "/ws/tasks/a.js", "return 1;", "", config.ScriptTask},
		{"directive over map", "/ws/tasks/a.js", "// restls-kind: validationScript\nreturn 1;", "", config.ValidationScript},
		{"named over directive", "/ws/tasks/a.js", "// restls-kind: validationScript\nreturn 1;", config.ScriptService, config.ScriptService},
	} {
		res, err := e.Run(context.Background(), snap, Request{Path: tc.path, Text: tc.text, Kind: tc.kind})
		if err != nil {
			t.Fatal(err)
		}
		if res.Kind != tc.want {
			t.Errorf("%s: kind %q, want %q", tc.name, res.Kind, tc.want)
		}
	}
}

// TestFixturesErrorBeforeTheRun: fixtures that do not parse (an unknown
// key) are one answer, a *FixturesError naming the document as shown
// and its line, and nothing runs: whether they came as text or as a file.
func TestFixturesErrorBeforeTheRun(t *testing.T) {
	hits := 0
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	defer svc.Close()
	snap := project(t, svc.URL, nil)
	doc := []byte("- serviceId: crm\n  method: GET\n  stauts: 200\n")
	file := filepath.Join(t.TempDir(), "a.mock.yaml")
	if err := os.WriteFile(file, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	e := inProcess(t, Options{})
	for _, f := range []Fixtures{{Inline: doc}, {File: file, Name: "a.mock.yaml"}} {
		_, err := e.Run(context.Background(), snap, Request{Text: `return api.rest.v1.get("crm", {}, {}).status;`, Fixtures: f})
		var fe *FixturesError
		if !errors.As(err, &fe) {
			t.Fatalf("fixtures %+v: error %v, want a *FixturesError", f, err)
		}
		want := restclient.PastedMocks + ":3"
		if f.File != "" {
			want = "a.mock.yaml:3"
		}
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "stauts") {
			t.Errorf("message %q does not name %s and the key", err, want)
		}
	}
	if hits != 0 {
		t.Errorf("the service was called %d times", hits)
	}
}

// TestNoFixtureNamesTheFileAndScriptAsShown: the no-fixture message
// names the fixtures and the script as the surface shows paths, never
// the absolute path nor a literal SCRIPT placeholder.
func TestNoFixtureNamesTheFileAndScriptAsShown(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "orders.js")
	if err := os.WriteFile(filepath.Join(dir, "orders.mock.yaml"), []byte("- serviceId: crm\n  method: POST\n  status: 200\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	snap := project(t, "http://127.0.0.1:1", nil)
	e := inProcess(t, Options{})
	show := func(p string) string { r, _ := filepath.Rel(dir, p); return r }
	res, err := e.Run(context.Background(), snap, Request{Path: script, Text: `return api.rest.v1.get("crm", {}, {}).status;`,
		Fixtures: Fixtures{Beside: true}, Show: show})
	if err != nil {
		t.Fatal(err)
	}
	if res.Error == nil || res.Mode != dryrun.ModeMock {
		t.Fatalf("want a no-fixture error in mock mode, got %+v", res)
	}
	msg := res.Error.Message
	if !strings.Contains(msg, "no fixture in orders.mock.yaml ") || !strings.Contains(msg, "restls fixtures generate orders.js") || strings.Contains(msg, dir) {
		t.Errorf("message %q", msg)
	}
}

// TestOneAdmissionLimit: a slot taken with Admit counts against
// MaxRuns: the next run is refused at once with ErrBusy (which callers
// know as workspace.ErrRunnerBusy), and a run may use the slot it holds.
func TestOneAdmissionLimit(t *testing.T) {
	snap := project(t, "http://127.0.0.1:1", nil)
	e := inProcess(t, Options{MaxRuns: 1})
	slot, ok := e.Admit()
	if !ok {
		t.Fatal("no slot")
	}
	if _, ok := e.Admit(); ok {
		t.Fatal("a second slot past MaxRuns 1")
	}
	_, err := e.Run(context.Background(), snap, Request{Text: "return 1;"})
	if !errors.Is(err, ErrBusy) || !errors.Is(err, workspace.ErrRunnerBusy) {
		t.Fatalf("error %v, want ErrBusy", err)
	}
	res, err := e.Run(context.Background(), snap, Request{Text: "return 1;", Slot: slot})
	if err != nil || string(res.Result) != "1" {
		t.Fatalf("run with the held slot: %v %v", res, err)
	}
	slot.Release()
	slot.Release() // once only
	if s, ok := e.Admit(); !ok {
		t.Fatal("the slot was not given back")
	} else {
		s.Release()
	}
}

// recorder is an Observer that keeps what it sees.
type recorder struct {
	mu       sync.Mutex
	made     []string
	answered []int
	logs     []string
	lines    []int
	done     *dryrun.Result
}

func (r *recorder) CallMade(i int, c *restclient.Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.made = append(r.made, c.Method+" "+c.ServiceID+" "+c.URL)
}

func (r *recorder) CallAnswered(i int, c *restclient.Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.Status != nil {
		r.answered = append(r.answered, c.Status.Code)
	}
}

func (r *recorder) Log(e dryrun.LogEntry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, e.Message)
}

func (r *recorder) Statement(line, _ int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line)
}

func (r *recorder) Done(res *dryrun.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = res
}

// TestObserverSeesTheRun: an observer sees every call made and
// answered, the console lines, the statements reached and the result, in
// order, whether the script runs in this process or in a child (whose
// events stream to this one before its result).
func TestObserverSeesTheRun(t *testing.T) {
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			w.WriteHeader(201)
		}
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer svc.Close()
	snap := project(t, svc.URL, nil)
	text := "var a = api.rest.v1.get(\"crm\", {}, {});\nconsole.log(\"between\");\nvar b = api.rest.v1.post(\"crm\", {}, {}, {x: 1});\nreturn [a.status.code, b.status.code];\n"
	for name, iso := range map[string]Isolation{"in process": InProcess, "child": Child} {
		e := New(Options{Isolation: iso, Limits: Limits{Timeout: 20 * time.Second}})
		obs := &recorder{}
		res, err := e.Run(context.Background(), snap, Request{Path: "/ws/a.js", Text: text, Observer: obs, Statements: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Error != nil || string(res.Result) != "[200,201]" {
			t.Fatalf("%s: result %s %+v", name, res.Result, res.Error)
		}
		// A call made already names the URL it is sent to.
		want := fmt.Sprintf("GET crm %[1]s,POST crm %[1]s", res.Calls[0].URL)
		if strings.Join(obs.made, ",") != want || res.Calls[0].URL == "" || len(obs.answered) != 2 || obs.answered[0] != 200 || obs.answered[1] != 201 {
			t.Errorf("%s: calls made %q, answered %v", name, obs.made, obs.answered)
		}
		if strings.Join(obs.logs, ",") != "between" || obs.done != res {
			t.Errorf("%s: logs %q, done %p (result %p)", name, obs.logs, obs.done, res)
		}
		if !slices.Equal(obs.lines, []int{1, 2, 3, 4}) {
			t.Errorf("%s: statements reached at lines %v, want 1 to 4", name, obs.lines)
		}
	}
}

// coverRecorder is a recorder that is a dryrun.CoverageObserver too.
type coverRecorder struct {
	recorder
	arms, sites []string
}

func (r *coverRecorder) Covered(c dryrun.Coverage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.arms = append(r.arms, fmt.Sprint(c.Arms))
}

func (r *coverRecorder) CallSite(i, line, column int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sites = append(r.sites, fmt.Sprintf("%d@%d:%d", i, line, column))
}

// TestCoverageObserverSeesBranches: a CoverageObserver hears the arms'
// counts and the calls' sites, in this process and through a real child
// (its events cross the pipe), and the result is unchanged.
func TestCoverageObserverSeesBranches(t *testing.T) {
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer svc.Close()
	snap := project(t, svc.URL, nil)
	text := "var a = api.rest.v1.get(\"crm\", {}, {});\nif (a.body.ok) { a = 1; }\nreturn a || 2;\n"
	for name, iso := range map[string]Isolation{"in process": InProcess, "child": Child} {
		e := New(Options{Isolation: iso, Limits: Limits{Timeout: 20 * time.Second}})
		obs := &coverRecorder{}
		res, err := e.Run(context.Background(), snap, Request{Path: "/ws/a.js", Text: text, Observer: obs, Statements: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Error != nil || string(res.Result) != "1" {
			t.Fatalf("%s: result %s %+v", name, res.Result, res.Error)
		}
		if want := []string{"[[1 0] [1 0]]"}; !slices.Equal(obs.arms, want) {
			t.Errorf("%s: arms %q, want %q", name, obs.arms, want)
		}
		if want := []string{"0@1:24"}; !slices.Equal(obs.sites, want) {
			t.Errorf("%s: call sites %q, want %q", name, obs.sites, want)
		}
	}
}

// TestLogLevelOfTheEngine: a run whose request names no log level logs
// at the engine's (a server's --log-level, which its children follow);
// a request's own wins.
func TestLogLevelOfTheEngine(t *testing.T) {
	snap := project(t, "http://127.0.0.1:1", nil)
	for _, tc := range []struct {
		engine, request string
		want            bool
	}{
		{"debug", "", true},
		{"", "", false},
		{"warn", "debug", true},
		{"debug", "warn", false},
	} {
		var stderr strings.Builder
		e := inProcess(t, Options{LogLevel: tc.engine})
		if _, err := e.Run(context.Background(), snap, Request{Name: "a.js", Text: "return 1;", LogLevel: tc.request, Stderr: &stderr}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(stderr.String(), "script run"); got != tc.want {
			t.Errorf("engine %q, request %q: the run's debug line written %v, want %v:\n%s", tc.engine, tc.request, got, tc.want, stderr.String())
		}
	}
}
