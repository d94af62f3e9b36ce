package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/restls/restls/input"
	"github.com/restls/restls/workspace"
)

// The test files' commands (issue 28, "Tests in the editor").
const (
	// CommandRunTests runs a test file, or one case of it: arguments
	// {uri, name?, show?, coverage?}; it answers the object restls test --json
	// prints. With show, the server also tells the user the outcome
	// (window/showMessage): a client that ignores a command's answer, as
	// most do for a CodeLens, still shows it.
	CommandRunTests = "restls.runTests"
	// CommandUpdateTest runs one case as restls test --update would and
	// answers the edit that writes its new expectations into the test
	// file ({uri, name}); the client applies it.
	CommandUpdateTest = "restls.updateTest"
	// CommandListTests answers a test file's cases and lines, or why it
	// is malformed ({uri}): the TestOutline a Testing view lists.
	CommandListTests = "restls.listTests"
)

// isTestDocument reports whether path is a test file of restls test.
// Its YAML is not a configuration file's.
func isTestDocument(path string) bool {
	return workspace.IsTestFile(path)
}

// Tests serve the test files (*.test.yaml) to editors. The lsp package
// does not import scripttest, which runs scripts; cmd/restls injects its
// functions, as it injects Options.Runner. A nil Outline leaves test
// files without lenses and diagnostics, a nil Run or Update makes the
// command answer that tests are not available.
type Tests struct {
	// Outline reads a test file as restls test does: its text is text,
	// or the file on disk when text is nil; the script and fixture files
	// it names are read from disk.
	Outline func(path string, text []byte) TestOutline
	// Run runs the file's tests (Case: only that one) and returns the
	// report as restls test --json writes it.
	Run func(ctx context.Context, req TestRequest) (json.RawMessage, error)
	// Update runs the case as restls test --update does, writing nothing:
	// it returns the text it read and the text with the case's new
	// expectations (the same when nothing changed), and the report.
	Update func(ctx context.Context, req TestRequest) (*TestUpdate, error)
}

// TestOutline is a test file as restls test reads it: its cases, or the
// first problem that makes it malformed.
type TestOutline struct {
	Cases []TestCase `json:"cases"`
	// Problem is why restls test would fail the file; nil when it reads.
	Problem *TestProblem `json:"problem,omitempty"`
}

// TestCase is one case of a test file: its name and where it starts
// (1-based line).
type TestCase struct {
	Name string `json:"name"`
	Line int    `json:"line"`
}

// TestProblem is a malformed test file's problem, at a 1-based line and
// column in characters, as YAML counts them (0: unknown).
type TestProblem struct {
	Line    int    `json:"line"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
}

// TestRequest asks to run or update a test file.
type TestRequest struct {
	// Path is the test file; Text its text in the editor, nil when it is
	// not open (the file on disk is read).
	Path string
	Text []byte
	// Open are the texts of the files editors hold open, by path (the
	// scripts the cases run among them): read in place of the disk, as
	// the editor's runs read the open document (files.go).
	Open map[string][]byte
	// Case names the one case to run; "" runs them all.
	Case string
	// Snapshot is the project as the session sees it, as its runs get
	// it (restls.runScript): the configuration the scripts call services
	// from, the kind map for scripts whose file names no kind, the API
	// descriptions each call's answer is held to and the engine level.
	Snapshot workspace.Snapshot
	// Coverage asks for the lines, branches and call outcomes the cases
	// covered, in the report's coverage (restls test --coverage's).
	Coverage bool
}

// TestUpdate is what Tests.Update did.
type TestUpdate struct {
	Before, After []byte
	Report        json.RawMessage
}

// TestArgs are the arguments of the test commands.
type TestArgs struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
	Show bool   `json:"show"`
	// Coverage: the report carries what the cases covered (restls.runTests).
	Coverage bool `json:"coverage,omitzero"`
}

func (a *TestArgs) complete() bool { return a.URI != "" }

// UpdateTestArgs are the arguments of restls.updateTest, which names
// one case.
type UpdateTestArgs TestArgs

func (a *UpdateTestArgs) complete() bool { return a.URI != "" && a.Name != "" }

// UpdateTestResult answers restls.updateTest: the edit (nil when the
// case's expectations already hold) and the report of the run.
type UpdateTestResult struct {
	Edit    *protocol.WorkspaceEdit `json:"edit,omitempty"`
	Updated bool                    `json:"updated"`
	Report  json.RawMessage         `json:"report"`
}

// testFiles reports whether this session serves test files: the server
// has Tests, and the client may have the server read files on its
// machine (the script and fixtures a test file names).
func (s *session) testFiles() bool {
	return s.srv.opts.Tests.Outline != nil && s.opts.MayUseFiles
}

// testRequest makes of a test command's argument a request for the file
// it names, with its editor text when it is open.
func (s *session) testRequest(command string, a TestArgs) (TestArgs, TestRequest, error) {
	u := canonicalURI(a.URI)
	path := hostPaths.fsPath(u)
	if u.Scheme() != "file" || !isTestDocument(path) {
		return a, TestRequest{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %s is not a test file: its name ends in %s (docs/ci.md)", command, a.URI, workspace.TestFileSuffix)
	}
	if !s.opts.MayUseFiles || !s.opts.MayRun && command != CommandListTests {
		return a, TestRequest{}, s.refused(command)
	}
	req := TestRequest{Path: path, Case: a.Name, Coverage: a.Coverage}
	if text, _, open := s.openText(path); open {
		req.Text = []byte(text)
	}
	req.Snapshot = s.workspaceSnapshot()
	if command != CommandListTests {
		// Only what the run may read: the files under the test file's
		// root (scripttest reads nothing outside it).
		req.Open = s.openTexts(cleanAbs(input.RootOf(path)))
	}
	return a, req, nil
}

// listTests answers restls.listTests.
func (s *session) listTests(_ context.Context, _ commandCall, arg *TestArgs) (TestOutline, error) {
	_, req, err := s.testRequest(CommandListTests, *arg)
	if err != nil {
		return TestOutline{}, err
	}
	if s.srv.opts.Tests.Outline == nil {
		return TestOutline{}, jsonrpc2.Errorf(jsonrpc2.InternalError, "%s: %v", CommandListTests, ErrNoTests)
	}
	out := s.srv.opts.Tests.Outline(req.Path, req.Text)
	if out.Cases == nil {
		out.Cases = []TestCase{}
	}
	return out, nil
}

// ErrNoTests is what the test commands answer when the server was built
// without Tests.
var ErrNoTests = fmt.Errorf("tests are not available in this restls build: it was started without a test runner")

// runTests answers restls.runTests.
func (s *session) runTests(ctx context.Context, c commandCall, arg *TestArgs) (json.RawMessage, error) {
	a, tr, err := s.testRequest(CommandRunTests, *arg)
	if err != nil {
		return nil, err
	}
	run := s.srv.opts.Tests.Run
	if run == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%s: %v", CommandRunTests, ErrNoTests)
	}
	// Tests wait on scripts: they must not hold the read goroutine.
	ctx, done := s.detach(ctx, c.req)
	defer done()
	rep, err := run(ctx, tr)
	if ctx.Err() != nil {
		return nil, protocol.ErrRequestCancelled
	}
	if err != nil {
		s.log.Info("runTests failed", zap.String("uri", a.URI), zap.Error(err))
		return nil, jsonrpc2.Errorf(codeRequestFailed, "%s: %v", CommandRunTests, err)
	}
	if a.Show {
		typ, msg := testSummary(uri.Basename(canonicalURI(a.URI)), rep)
		s.showMessage(ctx, typ, msg)
	}
	return rep, nil
}

// updateTest answers restls.updateTest.
func (s *session) updateTest(ctx context.Context, c commandCall, arg *UpdateTestArgs) (*UpdateTestResult, error) {
	a, tr, err := s.testRequest(CommandUpdateTest, TestArgs(*arg))
	if err != nil {
		return nil, err
	}
	update := s.srv.opts.Tests.Update
	if update == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%s: %v", CommandUpdateTest, ErrNoTests)
	}
	ctx, done := s.detach(ctx, c.req)
	defer done()
	up, err := update(ctx, tr)
	if ctx.Err() != nil {
		return nil, protocol.ErrRequestCancelled
	}
	if err != nil {
		s.log.Info("updateTest failed", zap.String("uri", a.URI), zap.Error(err))
		return nil, jsonrpc2.Errorf(codeRequestFailed, "%s: %v", CommandUpdateTest, err)
	}
	out := &UpdateTestResult{Report: up.Report}
	if e, ok := textEdit(up.Before, up.After); ok {
		u := canonicalURI(a.URI)
		out.Edit = &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{u: {e}}}
		out.Updated = true
	}
	return out, nil
}

// textEdit is the one edit that turns before into after: the bytes
// between their common prefix and suffix, cut at character boundaries
// (never inside a line break), so the editor keeps the cursor and undo
// step of the rest. ok is false when they are the same.
func textEdit(before, after []byte) (protocol.TextEdit, bool) {
	if string(before) == string(after) {
		return protocol.TextEdit{}, false
	}
	p := 0
	for p < len(before) && p < len(after) && before[p] == after[p] {
		p++
	}
	for p > 0 && (p < len(before) && !utf8.RuneStart(before[p]) || before[p-1] == '\r') {
		p--
	}
	n := 0
	for n < len(before)-p && n < len(after)-p && before[len(before)-1-n] == after[len(after)-1-n] {
		n++
	}
	for n > 0 && (!utf8.RuneStart(before[len(before)-n]) || before[len(before)-n] == '\n' && len(before)-n > 0 && before[len(before)-n-1] == '\r') {
		n--
	}
	m := newMapper(string(before))
	return protocol.TextEdit{
		Range:   protocol.Range{Start: m.position(p), End: m.position(len(before) - n)},
		NewText: string(after[p : len(after)-n]),
	}, true
}

// testSummary is the message of a run with show: the counts, then the
// first line of each failing test's first failure.
func testSummary(file string, rep json.RawMessage) (protocol.MessageType, string) {
	var r struct {
		Tests []struct {
			Name     string   `json:"name"`
			Line     int      `json:"line"`
			Passed   bool     `json:"passed"`
			Failures []string `json:"failures"`
		} `json:"tests"`
		Passed int `json:"passed"`
		Failed int `json:"failed"`
	}
	if err := json.Unmarshal(rep, &r); err != nil {
		return protocol.MessageTypeError, "restls test " + file + ": the report does not read: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "restls test %s: %d passed, %d failed", file, r.Passed, r.Failed)
	for _, t := range r.Tests {
		if t.Passed {
			continue
		}
		first := ""
		if len(t.Failures) > 0 {
			// The paragraph's head, and its first line when the head
			// only introduces the lines ("result (...):").
			var rest string
			first, rest, _ = strings.Cut(t.Failures[0], "\n")
			if next, _, _ := strings.Cut(rest, "\n"); strings.HasSuffix(first, ":") && strings.TrimSpace(next) != "" {
				first += " " + strings.TrimSpace(next)
			}
		}
		fmt.Fprintf(&b, "\nFAIL %s (line %d): %s", t.Name, t.Line, first)
	}
	if r.Failed > 0 {
		return protocol.MessageTypeWarning, b.String()
	}
	return protocol.MessageTypeInfo, b.String()
}
