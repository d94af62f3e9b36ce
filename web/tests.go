package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/restls/restls/coverage"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/scripttest"
	"github.com/restls/restls/workspace"
)

// POST /v1/test: the designer's Run tests (issue 35, "the designer shows
// covered lines after a test run"). The project's test files
// (*.test.yaml under Options.TestRoot) whose script: is the script the
// designer edits (named by its path in the project) run as restls test
// --coverage runs them, with the editor's text in place of the file on
// disk: scripttest.Run over the server's one engine, each case a mock run
// behind the gate (the role mocker, as any run with fixtures), in a child
// like every run, one after the other on one --max-runs slot. The answer
// is each case's outcome and the script's coverage (coverage.Script, the
// lines restls test --coverage writes to LCOV).

// Bounds of one POST /v1/test.
const (
	// maxTestCases is how many cases one run may run.
	maxTestCases = 100
	// maxTestTime bounds the whole run; each case has the run limits of
	// every run (--run-timeout, --max-memory).
	maxTestTime = 2 * time.Minute
	// maxScriptPath bounds the script's path.
	maxScriptPath = 1024
)

// testBody is POST /v1/test.
type testBody struct {
	// Script is the script's path in the project, relative to its root
	// with "/" (scripts/orders.js): the test files whose script: resolves
	// to it run.
	Script string `json:"script"`
	// Text is the script's text in the editor, run in place of the file.
	Text string `json:"text"`
	// Environment names the project file's environment whose
	// configuration the cases run with; empty: the server's.
	Environment string `json:"environment"`
}

// testAnswer is POST /v1/test's answer.
type testAnswer struct {
	// Script is the script's path in the project, as asked.
	Script string `json:"script"`
	// Files are the test files that ran, relative to the project root.
	Files  []string       `json:"files"`
	Passed int            `json:"passed"`
	Failed int            `json:"failed"`
	Tests  []testCaseJSON `json:"tests"`
	// Coverage is what the cases covered of the script's text: the lines
	// with a statement and their hits (restls test --coverage's LCOV),
	// branch arms and each call site's outcomes.
	Coverage *coverage.Script `json:"coverage"`
}

// testCaseJSON is one case's outcome, as restls test reports it.
type testCaseJSON struct {
	// File is the test file, relative to the project root; Line the
	// case's line in it.
	File   string `json:"file"`
	Name   string `json:"name"`
	Line   int    `json:"line"`
	Passed bool   `json:"passed"`
	// Failures say what differs, one paragraph each.
	Failures   []string `json:"failures,omitempty"`
	DurationMs float64  `json:"durationMs"`
}

// testScriptsJSON is GET /v1/test/scripts: the scripts the project's
// test files name, which the page offers in its script field.
type testScriptsJSON struct {
	Scripts []testScriptJSON `json:"scripts"`
}

// testScriptJSON is a script some test file names, and those files;
// paths relative to the project root, with "/".
type testScriptJSON struct {
	Script string   `json:"script"`
	Files  []string `json:"files"`
}

// handleTestScripts answers the scripts the project's test files name,
// sorted, to whoever may run tests (what POST /v1/test would run for
// each): the page's script field offers them. A script outside the
// project (a test file's ../..) is left out: it cannot be asked for.
func (s *Server) handleTestScripts(w http.ResponseWriter, r *http.Request) {
	if st := s.runStatus(r); !st.Allowed {
		code := http.StatusForbidden
		if st.Reason == reasonNoKey {
			code = http.StatusUnauthorized
		}
		writeError(w, code, st.Reason)
		return
	}
	named, _, err := s.projectTests(r.Context())
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	byScript := map[string]*testScriptJSON{}
	out := testScriptsJSON{Scripts: []testScriptJSON{}}
	for _, n := range named {
		if n.Script == "" {
			continue
		}
		rel, err := filepath.Rel(s.opts.TestRoot, n.Script)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		rel = filepath.ToSlash(rel)
		e := byScript[rel]
		if e == nil {
			e = &testScriptJSON{Script: rel}
			byScript[rel] = e
		}
		e.Files = append(e.Files, s.projectPath(n.File))
	}
	for _, e := range byScript {
		out.Scripts = append(out.Scripts, *e)
	}
	slices.SortFunc(out.Scripts, func(a, b testScriptJSON) int { return strings.Compare(a.Script, b.Script) })
	writeJSON(w, http.StatusOK, out)
}

// testShape is POST /v1/test's body, for messages.
const testShape = `{"script": path in the project (scripts/x.js), "text": the script's text, "environment"?: name}`

func (s *Server) handleTest(w http.ResponseWriter, r *http.Request) {
	// Admission first, as POST /v1/run: one slot of --max-runs, which
	// every case uses in turn.
	slot, ok := s.admitRun(w, r, "a test run executes the script")
	if !ok {
		return
	}
	defer slot.Release()
	var body testBody
	if err := json.NewDecoder(io.LimitReader(r.Body, maxRunBody+1)).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "the body must be JSON "+testShape+": "+err.Error())
		return
	}
	snap, err := s.snapshotIn(body.Environment)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	// The role before anything of the project is read: every case is a
	// run answered by fixtures (a call none answers fails no-fixture).
	id, _ := IdentityFrom(r.Context())
	probe := engine.Request{Name: designerScript, Text: body.Text, Fixtures: engine.Fixtures{None: true}}
	if n := len(body.Script); n > 0 && n <= maxScriptPath {
		probe.Name = body.Script // the audit names the script as the cases' lines do
	}
	if _, err := s.gate.Vet(id, snap, probe, "test"); err != nil {
		s.runFailed(w, r, err)
		return
	}
	rel, abs, err := s.testScript(body.Script)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	named, leftOut, err := s.projectTests(r.Context())
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	var files []string
	for _, n := range named {
		if n.Script == abs {
			files = append(files, n.File)
		}
	}
	if len(files) == 0 {
		msg := noTestsMessage(rel)
		if leftOut != "" {
			msg += " (" + leftOut + ")"
		}
		writeError(w, http.StatusNotFound, msg)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), maxTestTime)
	defer cancel()
	gated := s.gate.Wrap(s.opts.Runner)
	// A case the gate or the engine refuses (the server stopping, a role
	// taken away) ends the run with the refusal: it is no outcome.
	var mu sync.Mutex
	var refused error
	run := func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		req.Slot = slot
		res, err := gated(context.WithValue(ctx, viaKey{}, "test"), snap, req)
		var ref *RefusedError
		if err != nil && (errors.As(err, &ref) || errors.Is(err, workspace.ErrRunnerBusy) || errors.Is(err, ErrStopped)) {
			mu.Lock()
			if refused == nil {
				refused = err
			}
			mu.Unlock()
			cancel()
		}
		return res, err
	}
	cov := coverage.New()
	rep, err := scripttest.Run(ctx, scripttest.Options{Paths: files, Snapshot: snap,
		Engine: run, Workers: 1, MaxCases: maxTestCases, Coverage: cov, Overlay: map[string][]byte{abs: []byte(body.Text)}})
	var many *scripttest.TooManyCasesError
	switch {
	case errors.As(err, &many):
		writeError(w, http.StatusUnprocessableEntity, fmt.Sprintf("%d cases test %s, above the %d the designer runs at once: run them with restls test %s", many.Cases, rel, many.Max, rel))
		return
	case refused != nil:
		s.runFailed(w, r, refused)
		return
	case r.Context().Err() != nil:
		return // the client went away
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		writeError(w, http.StatusUnprocessableEntity, fmt.Sprintf("the cases of %s took longer than %v, the limit of one designer test run: run them with restls test", rel, maxTestTime))
		return
	case err != nil:
		writeError(w, http.StatusUnprocessableEntity, "the tests did not run: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, s.testAnswerOf(rel, abs, files, rep))
}

// defaultIndexPoll is Options.IndexPoll's zero: the language server's
// polling interval.
const defaultIndexPoll = 2 * time.Second

// projectTests returns the test files of the project (restls test's:
// every *.test.yaml below TestRoot, in no directory input.SkipDir leaves
// out), each with the script its script: names, sorted by path; and
// what the index left out, for the user ("" when nothing). They come
// from the session's project index of TestRoot (the one the editor's
// references and the MCP server read), built at the first request and
// brought current with the disk at most once per IndexPoll (shared with
// every surface polling it) and whenever the session is told of a change
// (Session.FilesChanged): a request walks nothing and reads no test file
// to find them.
func (s *Server) projectTests(ctx context.Context) ([]workspace.ProjectTest, string, error) {
	sess := s.opts.Session
	pi, isNew, err := sess.ProjectIndex(s.opts.TestRoot, sess.Registry(), sess.Kinds())
	if err != nil {
		return nil, "", fmt.Errorf("no project index of %s: %w", filepath.Base(s.opts.TestRoot), err)
	}
	switch {
	case isNew:
		// The index is shared: a client that leaves during the first
		// request must not leave it partial for those waiting on it (and
		// for an editor sharing it). The build has its own time limit.
		if err := pi.Build(context.WithoutCancel(ctx)); err != nil {
			return nil, "", fmt.Errorf("indexing the project's test files did not finish (%v): try again", err)
		}
	case !pi.Wait(ctx):
		return nil, "", ctx.Err()
	case s.opts.IndexPoll >= 0:
		every := s.opts.IndexPoll
		if every == 0 {
			every = defaultIndexPoll
		}
		pi.Poll(every)
	}
	return pi.Tests(), leftOutTests(pi), nil
}

// leftOutTests says, in the page's words, why pi may not hold a test
// file of the project ("" when nothing can be missing): its walk stopped
// at a bound, or it holds no more files than its cap. It names no
// directory of the server (the editor's message does, LeftOutMessage),
// and the scripts only the index's byte budget left out hide no test
// file.
func leftOutTests(pi *workspace.ProjectIndex) string {
	const runIt = "a test file there is not found here; restls test DIR runs it"
	ix := pi.Index()
	if stop := ix.WalkStop(); stop != nil {
		if stop.Depth {
			return fmt.Sprintf("the project index looks at most %d directories deep, and the project goes deeper: %s", stop.Limit, runIt)
		}
		return fmt.Sprintf("the project index looks through at most %d files and directories, and the project has more: %s", stop.Limit, runIt)
	}
	if _, truncated := ix.Len(); truncated {
		return "the project index holds only the first files of a project this large: " + runIt
	}
	return ""
}

// testScript checks the script's path in the project: relative, inside
// the root, lexically (the test files name it so; its text comes from
// the request, so nothing is read there).
func (s *Server) testScript(script string) (rel, abs string, err error) {
	switch {
	case strings.TrimSpace(script) == "":
		return "", "", errors.New(`"script" is empty: name the script's path in the project, relative to its root (scripts/orders.js), so the test files that test it are found`)
	case len(script) > maxScriptPath:
		return "", "", fmt.Errorf(`"script" is %d bytes, above the %d limit`, len(script), maxScriptPath)
	}
	rel = filepath.Clean(filepath.FromSlash(strings.TrimPrefix(script, "./")))
	if !filepath.IsLocal(rel) || rel == "." {
		return "", "", fmt.Errorf(`"script" %q is not a path inside the project: give it relative to the project root (scripts/orders.js)`, script)
	}
	return filepath.ToSlash(rel), filepath.Join(s.opts.TestRoot, rel), nil
}

// noTestsMessage says that no test file tests rel, and what to create.
func noTestsMessage(rel string) string {
	test := strings.TrimSuffix(rel, filepath.Ext(rel)) + workspace.TestFileSuffix
	return fmt.Sprintf("no test file of this project tests %s: create %s with \"script: %s\" and a case (its input, fixtures and expected result; docs/ci.md), or name the script's path as the test files do",
		rel, test, filepath.ToSlash(filepath.Base(rel)))
}

// testAnswerOf is the answer of a run of files, paths relative to the
// project root.
func (s *Server) testAnswerOf(rel, abs string, files []string, rep *scripttest.Report) testAnswer {
	out := testAnswer{Script: rel, Files: make([]string, 0, len(files)), Passed: rep.Passed, Failed: rep.Failed, Tests: make([]testCaseJSON, 0, len(rep.Outcomes))}
	for _, f := range files {
		out.Files = append(out.Files, s.projectPath(f))
	}
	for _, o := range rep.Outcomes {
		// The failures name files relative to the project, as the page
		// does: the server's directories are none of the client's business.
		var fails []string
		for _, f := range o.Failures {
			fails = append(fails, strings.ReplaceAll(f, s.opts.TestRoot+string(filepath.Separator), ""))
		}
		out.Tests = append(out.Tests, testCaseJSON{File: s.projectPath(o.File), Name: o.Name, Line: o.Line, Passed: o.Passed, Failures: fails, DurationMs: o.DurationMs})
	}
	if rep.Coverage != nil {
		for _, c := range rep.Coverage.Scripts {
			if c.Name == abs {
				c.Name = rel
				out.Coverage = c
			}
		}
	}
	return out
}

// projectPath is path relative to the project root, with "/".
func (s *Server) projectPath(path string) string {
	if r, err := filepath.Rel(s.opts.TestRoot, path); err == nil && filepath.IsLocal(r) {
		return filepath.ToSlash(r)
	}
	return filepath.Base(path)
}
