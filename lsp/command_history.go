package lsp

import (
	"context"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/hints"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/dryrun/diff"
	"github.com/restls/restls/runtime/dryrun/history"
	"github.com/restls/restls/workspace"
)

// Commands of the run history (issue 28).
const (
	// CommandCompareWithPrevious answers the diff of the script's last
	// run against the run before it.
	CommandCompareWithPrevious = "restls.compareWithPrevious"
	// CommandCompareWithFixtures answers the diff of the script's last
	// run against the same script answered from its fixture file.
	CommandCompareWithFixtures = "restls.compareWithFixtures"
	// CommandUpdateFixtures writes the answers of the script's last run
	// into its fixture file, as record "auto" would have.
	CommandUpdateFixtures = "restls.updateFixtures"
)

// HistoryArgs are the arguments of the history commands.
type HistoryArgs struct {
	URI string `json:"uri"`
}

func (a *HistoryArgs) complete() bool { return a.URI != "" }

// RunInfo says which run a side of a comparison is.
type RunInfo struct {
	// Time is when the run ended; zero for a run made for the comparison.
	Time time.Time `json:"time,omitzero"`
	// Mode is the run's dryrun mode (live, mock, record).
	Mode string `json:"mode,omitempty"`
	// Fixtures is the fixture file that answered, as the client shows
	// paths; only for the fixtures side of compareWithFixtures.
	Fixtures string `json:"fixtures,omitempty"`
	Trimmed  bool   `json:"trimmed,omitempty"`
}

// CompareResult is the answer of the compare commands: the diff from Old
// to New (New is always the script's last run).
type CompareResult struct {
	Old  RunInfo    `json:"old"`
	New  RunInfo    `json:"new"`
	Diff *diff.Diff `json:"diff"`
	// Text is Diff as `restls run --diff-with` prints it, for clients
	// that show it as text rather than render Diff themselves.
	Text string `json:"text"`
}

// compared is the CompareResult of old and new, named oldName and newName
// in its text.
func compared(oldInfo, newInfo RunInfo, d *diff.Diff, oldName, newName string) *CompareResult {
	var b strings.Builder
	_ = diff.Text(&b, d, oldName, newName)
	return &CompareResult{Old: oldInfo, New: newInfo, Diff: d, Text: b.String()}
}

// runName names a kept run in a diff's text.
func runName(what string, e *history.Entry) string {
	return what + " (" + e.Time.Local().Format("2006-01-02 15:04:05") + ")"
}

// UpdateFixturesResult is the answer of restls.updateFixtures.
type UpdateFixturesResult struct {
	// File is the fixture file written, as the client shows paths.
	File string `json:"file"`
	// Calls is how many answers were written; Skipped the calls of the
	// run that had none (a transport error) or came from fixtures.
	Calls   int `json:"calls"`
	Skipped int `json:"skipped"`
}

// historyStore is the store of the session's runs: the server's (on
// disk, for editors) unless the session keeps them in memory.
func (s *Server) historyStore(o SessionOptions) history.Store {
	if o.HistoryInMemory || s.opts.History == nil {
		return history.NewMemory()
	}
	return s.opts.History
}

// historyKey is the key a document's runs are kept under: its file path,
// or its URI when it is not a file.
func historyKey(d *document) string {
	if p := scriptPath(d.uri, d.path); p != "" {
		return p
	}
	return string(d.uri)
}

// keepRun adds a finished run of d to the history and remembers its call
// timings for the timeout-budget hint. A failure to keep it is logged, the
// run's answer is not changed by it.
func (s *session) keepIn(d *document) *engine.Keep {
	source := history.SourceEditor
	if s.opts.HistoryInMemory {
		source = history.SourceDesigner
	}
	return &engine.Keep{Store: s.history, Key: historyKey(d), Source: source}
}

// maxSlowCalls bounds the slow calls kept per script (one per serviceId
// and method).
const maxSlowCalls = 100

// keepSlowCalls remembers the calls of d's last run that came close to
// their read timeout, for the timeout-budget diagnostic, and has d
// diagnosed again when they changed.
func (s *session) keepSlowCalls(d *document, res *dryrun.Result) {
	var slow []hints.SlowCall
	seen := map[string]bool{}
	for _, c := range res.Calls {
		for _, e := range c.Events {
			key := c.ServiceID + "\x00" + c.Method
			if e.Kind != dryrun.EventTimeoutBudget || seen[key] || len(slow) == maxSlowCalls {
				continue
			}
			seen[key] = true
			slow = append(slow, hints.SlowCall{ServiceID: c.ServiceID, Method: c.Method, Message: e.Message})
		}
	}
	key := historyKey(d)
	s.mu.Lock()
	before := s.slow[key]
	if len(slow) == 0 {
		delete(s.slow, key)
	} else {
		if s.slow == nil {
			s.slow = map[string][]hints.SlowCall{}
		}
		s.slow[key] = slow
	}
	s.mu.Unlock()
	if len(before) > 0 || len(slow) > 0 {
		s.diagnostics.mark(false, d.uri)
	}
}

// slowCalls are the calls of d's last run that came close to their read
// timeout.
func (s *session) slowCalls(d *document) []hints.SlowCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.slow[historyKey(d)]
}

// historyView returns the open document a history command's argument
// names.
func (s *session) historyView(command string, a *HistoryArgs) (view, error) {
	v, ok := s.viewOf(canonicalURI(a.URI))
	if !ok {
		return view{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %s is not open in the editor; open it first", command, a.URI)
	}
	return v, nil
}

// lastRuns returns the n last runs of d, failing with a message that says
// what to do when there are fewer.
func (s *session) lastRuns(command string, d *document, n int) ([]*history.Entry, error) {
	runs, err := s.history.Last(historyKey(d), n)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%s: %v", command, err)
	}
	if len(runs) < n {
		what := "no dry run of this script is kept yet: run it (restls.runScript) first"
		if n == 2 && len(runs) == 1 {
			what = "only one dry run of this script is kept: run it again to compare"
		}
		return nil, jsonrpc2.Errorf(codeRequestFailed, "%s: %s", command, what)
	}
	return runs, nil
}

func info(e *history.Entry) RunInfo {
	return RunInfo{Time: e.Time, Mode: e.Run.Mode, Trimmed: e.Trimmed}
}

// compareWithPrevious answers restls.compareWithPrevious.
func (s *session) compareWithPrevious(_ context.Context, _ commandCall, arg *HistoryArgs) (*CompareResult, error) {
	v, err := s.historyView(CommandCompareWithPrevious, arg)
	if err != nil {
		return nil, err
	}
	runs, err := s.lastRuns(CommandCompareWithPrevious, v.d, 2)
	if err != nil {
		return nil, err
	}
	return compared(info(runs[1]), info(runs[0]), diff.Compare(runs[1].Run, runs[0].Run), runName("the previous run", runs[1]), runName("the last run", runs[0])), nil
}

// compareWithFixtures answers restls.compareWithFixtures: the document's
// current text is run answered from the fixture file beside it, and that
// run is compared with the last one kept. The fixtures run is not kept.
func (s *session) compareWithFixtures(ctx context.Context, c commandCall, arg *HistoryArgs) (*CompareResult, error) {
	const command = CommandCompareWithFixtures
	v, err := s.historyView(command, arg)
	if err != nil {
		return nil, err
	}
	runner := s.srv.opts.Runner
	if runner == nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, command+": "+ErrNoRunner.Error())
	}
	if !s.opts.MayRun || !s.opts.MayUseFiles {
		return nil, s.refused(command)
	}
	script := scriptPath(v.d.uri, v.d.path)
	mockFile := ""
	if script != "" {
		mockFile = workspace.MockFileBeside(script)
	}
	if mockFile == "" {
		return nil, jsonrpc2.Errorf(codeRequestFailed, "%s: %s has no fixture file beside it: record one first (%s, or restls.runScript with record: %q)", command, uri.Basename(v.d.uri), CommandUpdateFixtures, auto)
	}
	runs, err := s.lastRuns(command, v.d, 1)
	if err != nil {
		return nil, err
	}
	ctx, done := s.detach(ctx, c.req)
	defer done()
	show := s.showPath(v)
	res, err := runner(ctx, v.ws, engine.Request{Path: v.d.path, Name: show(script), Text: v.d.doc.Text(),
		Fixtures: engine.Fixtures{File: mockFile}, Trace: true, Show: show})
	if err != nil {
		return nil, s.runError(ctx, command, string(v.d.uri), err)
	}
	shown := workspace.NewPathDisplay(s.opts.ShowPath, v.snap.Sources).Path(mockFile)
	return compared(RunInfo{Mode: res.Mode, Fixtures: shown}, info(runs[0]), diff.Compare(res, runs[0].Run),
		"the fixtures of "+shown, runName("the last run", runs[0])), nil
}

// updateFixtures answers restls.updateFixtures: the answers of the
// script's last run go into the fixture file beside it (record "auto"'s
// file), replacing the fixtures of the same calls as --record does. The
// client shows the diff (compareWithFixtures) before it asks.
func (s *session) updateFixtures(_ context.Context, _ commandCall, arg *HistoryArgs) (*UpdateFixturesResult, error) {
	const command = CommandUpdateFixtures
	v, err := s.historyView(command, arg)
	if err != nil {
		return nil, err
	}
	if !s.opts.MayUseFiles {
		return nil, s.refused(command)
	}
	if v.reg == nil {
		return nil, jsonrpc2.Errorf(codeRequestFailed, "%s: %s", command, v.snap.For(v.kind).HintState().Message())
	}
	runs, err := s.lastRuns(command, v.d, 1)
	if err != nil {
		return nil, err
	}
	last := runs[0]
	if last.Run.Mode == dryrun.ModeMock {
		return nil, jsonrpc2.Errorf(codeRequestFailed, "%s: the last run of %s was answered from fixtures, so it has no answers to write: run it live first", command, uri.Basename(v.d.uri))
	}
	if last.Trimmed {
		return nil, jsonrpc2.Errorf(codeRequestFailed, "%s: the last run of %s was too large to keep whole (bodies were cut at %d KiB): record it with restls.runScript and record: %q instead", command, uri.Basename(v.d.uri), history.MaxEntry>>10, auto)
	}
	_, file, err := fixtureFiles(scriptPath(v.d.uri, v.d.path), "", auto)
	if err != nil {
		return nil, jsonrpc2.Errorf(codeRequestFailed, "%s: %v", command, err)
	}
	n, skipped, err := history.WriteFixtures(file, v.reg, last.Run)
	if err != nil {
		return nil, jsonrpc2.Errorf(codeRequestFailed, "%s: %v", command, err)
	}
	return &UpdateFixturesResult{File: workspace.NewPathDisplay(s.opts.ShowPath, v.snap.Sources).Path(file), Calls: n, Skipped: skipped}, nil
}
