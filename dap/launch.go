package dap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	godap "github.com/google/go-dap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/dryrun/history"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/scripttest"
	"github.com/restls/restls/workspace"
)

// LaunchArgs are the launch request's arguments (the launch
// configuration, docs/debugging.md).
type LaunchArgs struct {
	// Program is the script's path.
	Program string `json:"program"`
	// Text is the script's text, for a client whose script is no file
	// (the designer page): with it, Program is only the script's name in
	// stack traces and breakpoints, never read; the fixtures are
	// FixturesText or none.
	Text string `json:"text,omitempty"`
	// Fixtures is a fixtures file; FixturesText a fixtures document
	// inline. With neither, the fixtures file beside the script answers,
	// if there is one.
	Fixtures     string `json:"fixtures,omitempty"`
	FixturesText string `json:"fixturesText,omitempty"`
	// Live sends the calls no fixture answers to their services, as
	// restls run does; off, they fail with no-fixture.
	Live bool `json:"live,omitempty"`
	// Input is context.input.
	Input json.RawMessage `json:"input,omitempty"`
	// Kind is the script's kind ("" lets the kind rule decide); Env the
	// environment ("" is the project's default).
	Kind string `json:"kind,omitempty"`
	Env  string `json:"env,omitempty"`
	// StopOnEntry stops before the first statement.
	StopOnEntry bool `json:"stopOnEntry,omitempty"`
	// TestFile is a test file (NAME.test.yaml) and Case the name of one
	// of its cases ("" is its first): the case's script runs with the
	// case's input and fixtures, as restls test runs it, and the console
	// says whether it passed. Program, when given, must be its script.
	TestFile string `json:"testFile,omitempty"`
	Case     string `json:"case,omitempty"`
	// Replay replays a recorded run of Program, offline: "last" (its
	// last run kept in the history), "last~N" (N runs before it), or a
	// file: a history entry, restls run --json's output, or a fixtures
	// file. Every call is answered from what was recorded; the console
	// says whether each call and the result are identical to the
	// recorded ones.
	Replay string `json:"replay,omitempty"`
}

// launchFields names what a launch configuration may hold, for the
// message that refuses one.
const launchFields = "program, text, fixtures, fixturesText, live, input, kind, env, stopOnEntry, testFile, case, replay"

// clientFields are what clients put in every launch configuration for
// themselves (VS Code's type, request, name, noDebug, presentation and
// keys starting with "__"; nvim-dap's and dape's type, request and
// name): not restls dap's to refuse as unknown.
// A list, not a map literal, which every restls process would build when
// it starts.
var clientFields = []string{"type", "request", "name", "noDebug", "presentation",
	"preLaunchTask", "postDebugTask", "internalConsoleOptions", "debugServer", "suppressMultipleSessionWarning"}

// withoutClientFields is raw without the clients' own fields (raw as it
// is when it is no JSON object: the decoder says why).
func withoutClientFields(raw json.RawMessage) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return raw
	}
	for k := range fields {
		if slices.Contains(clientFields, k) || strings.HasPrefix(k, "__") {
			delete(fields, k)
		}
	}
	b, err := json.Marshal(fields)
	if err != nil {
		return raw
	}
	return b
}

// DecodeLaunch reads a launch request's arguments as restls dap does:
// the clients' own fields left out, any other field it does not know
// refused, naming it.
func DecodeLaunch(raw json.RawMessage) (LaunchArgs, error) {
	var a LaunchArgs
	dec := json.NewDecoder(bytes.NewReader(withoutClientFields(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, fmt.Errorf("the launch configuration is not what restls dap takes (%s): %v", launchFields, err)
	}
	return a, nil
}

// doLaunch reads the script the launch configuration names (a test
// case's, a replayed run's).
func (s *session) doLaunch(raw json.RawMessage) error {
	a, err := DecodeLaunch(raw)
	if err != nil {
		return err
	}
	if s.o.Vet != nil {
		if err := s.o.Vet(&a); err != nil {
			return err
		}
	}
	if len(a.Input) > 0 && !json.Valid(a.Input) {
		return fmt.Errorf("the launch configuration's input is not JSON")
	}
	var tc *scripttest.Case
	text := a.Text
	switch {
	case a.TestFile != "":
		if a.Text != "" || a.Replay != "" {
			return errors.New(`a launch configuration with "testFile" debugs the case's script: leave out "text" and "replay"`)
		}
		f, c, err := s.findCase(a)
		if err != nil {
			return err
		}
		tc, text, a.Program = c, f.Source, f.Script
		if abs, err := filepath.Abs(f.Script); err == nil {
			a.Program = abs
		}
		if len(a.Input) == 0 {
			a.Input = c.Input
		}
	case a.Program == "" && a.Text == "":
		return errors.New(`the launch configuration has no "program": name the script to debug`)
	case text == "":
		abs, err := filepath.Abs(a.Program)
		if err != nil {
			return err
		}
		a.Program = abs
		b, err := input.ReadFile(abs, input.Script)
		if err != nil {
			return fmt.Errorf("reading the script %s: %w", s.show(abs), err)
		}
		text = string(b)
	case a.Program == "":
		a.Program = "script.js"
	default:
		a.Program = filepath.Clean(a.Program)
	}
	var rp *replay
	if a.Replay != "" {
		var err error
		if rp, err = s.loadReplay(&a); err != nil {
			return err
		}
	}
	lines, err := runtime.StatementLines(text)
	if err != nil {
		// The run reports the syntax error; no line can stop.
		lines = nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.launch != nil {
		return errors.New("this session has launched its script already: start another session")
	}
	s.launch, s.text, s.lines, s.testCase, s.replay = &a, text, lines, tc, rp
	if a.StopOnEntry {
		s.mode = stepIn
	}
	return nil
}

// findCase is the test file and the case a launch names.
func (s *session) findCase(a LaunchArgs) (*scripttest.File, *scripttest.Case, error) {
	path, err := filepath.Abs(a.TestFile)
	if err != nil {
		return nil, nil, err
	}
	f, err := scripttest.Load(path)
	if err != nil {
		return nil, nil, err
	}
	c := f.Case(a.Case)
	if c == nil {
		names := make([]string, 0, len(f.Cases))
		for _, c := range f.Cases {
			names = append(names, strconv.Quote(c.Name))
		}
		if len(names) == 0 {
			return nil, nil, fmt.Errorf("%s has no case to debug", s.show(path))
		}
		return nil, nil, fmt.Errorf("%s has no case %q: its cases are %s", s.show(path), a.Case, strings.Join(names, ", "))
	}
	if a.Program != "" {
		want, _ := filepath.Abs(f.Script)
		if got, _ := filepath.Abs(a.Program); got != want {
			return nil, nil, fmt.Errorf("%s tests %s, not the launch configuration's program %s: leave \"program\" out", s.show(path), s.show(want), s.show(got))
		}
	}
	return f, c, nil
}

// replay is a recorded run a launch replays.
type replay struct {
	// name says which run, in messages.
	name string
	// entry is the run recorded; nil for a fixtures file.
	entry *history.Entry
	// file is a fixtures file that answers (entry nil).
	file string
	// note is said before the run (what the recording lacks).
	note string
}

// loadReplay finds the recorded run a.Replay names.
func (s *session) loadReplay(a *LaunchArgs) (*replay, error) {
	if a.Live {
		return nil, errors.New(`a replay is answered from what was recorded, never live: leave out "live"`)
	}
	if a.Fixtures != "" || a.FixturesText != "" {
		return nil, errors.New(`a replay is answered from what was recorded: leave out "fixtures" and "fixturesText"`)
	}
	n, last := 0, a.Replay == "last"
	if rest, ok := strings.CutPrefix(a.Replay, "last~"); ok {
		v, err := strconv.Atoi(rest)
		if err != nil || v < 0 || v >= history.Keep {
			return nil, fmt.Errorf(`replay %q: "last~N" names the Nth run before the last, N from 0 to %d`, a.Replay, history.Keep-1)
		}
		n, last = v, true
	}
	if last {
		if s.o.History == nil {
			return nil, errors.New("replay: this restls dap keeps no run history (RESTLS_HISTORY=off, or no cache directory): replay a file instead")
		}
		runs, err := s.o.History.Last(a.Program, n+1)
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		if len(runs) <= n {
			return nil, fmt.Errorf("replay %q: %d run(s) of %s are kept: run it (from the editor, or restls run --save) first", a.Replay, len(runs), s.show(a.Program))
		}
		e := runs[n]
		return s.replayOf(a, e, fmt.Sprintf("the run of %s", e.Time.Local().Format("2006-01-02 15:04:05"))), nil
	}
	file, err := filepath.Abs(a.Replay)
	if err != nil {
		return nil, err
	}
	data, err := input.ReadFile(file, input.Input)
	if err != nil {
		return nil, fmt.Errorf("replay: reading %s: %w", s.show(file), err)
	}
	e, herr := history.Decode(data)
	if herr == nil {
		return s.replayOf(a, e, s.show(file)), nil
	}
	if _, merr := restclient.ParseMock(s.show(file), data); merr != nil {
		return nil, fmt.Errorf("replay: %s is neither a history entry (nor restls run --json output: %v) nor a fixtures file: %v", s.show(file), herr, merr)
	}
	return &replay{name: s.show(file), file: file}, nil
}

// replayOf is the replay of e; the launch takes its input and kind
// unless it names its own.
func (s *session) replayOf(a *LaunchArgs, e *history.Entry, name string) *replay {
	rp := &replay{name: name, entry: e}
	switch {
	case len(a.Input) == 0 && len(e.Input) > 0:
		a.Input = e.Input
	case len(a.Input) == 0:
		rp.note = "replay: the recording holds no input (restls run --json prints none): context.input is {}; give the launch configuration's \"input\"\n"
	}
	if a.Kind == "" {
		a.Kind = string(e.Run.Kind)
	}
	return rp
}

// run runs the script, then says it ended.
func (s *session) run(ctx context.Context, a LaunchArgs, text string) {
	defer close(s.ran)
	defer s.cancelRun()
	code := 1
	defer func() {
		s.event(&godap.ExitedEvent{Event: s.newEvent("exited"), Body: godap.ExitedEventBody{ExitCode: code}})
		s.event(&godap.TerminatedEvent{Event: s.newEvent("terminated")})
	}()
	snap, err := s.o.Snapshot(ctx, a.Env)
	if err != nil {
		s.output("stderr", fmt.Sprintf("restls dap: %v\n", err))
		return
	}
	var req engine.Request
	if s.testCase != nil {
		req = s.testCase.Request(a.Live)
	} else {
		fx := engine.Fixtures{File: a.Fixtures, Live: a.Live}
		switch {
		case a.FixturesText != "":
			fx.Inline = []byte(a.FixturesText)
		case a.Text != "":
			// A script that is no file has no fixtures beside it.
			fx.File, fx.None = "", !a.Live
		case a.Fixtures == "":
			fx.Beside = true
		}
		req = engine.Request{Path: a.Program, Text: text, Kind: config.Kind(a.Kind), Input: a.Input, Fixtures: fx}
		if a.Text != "" {
			req.Path, req.Name = "", a.Program
		}
	}
	if rp := s.replay; rp != nil {
		if req.Fixtures, err = rp.fixtures(snap, req); err != nil {
			s.output("stderr", fmt.Sprintf("restls dap: replay of %s: %v\n", rp.name, err))
			return
		}
		s.output("console", fmt.Sprintf("replay of %s: every call is answered from what was recorded, none is sent\n", rp.name))
		if rp.note != "" {
			s.output("console", rp.note)
		}
	}
	req.Input = a.Input
	req.Observer, req.Statements, req.Show = (*observer)(s), true, s.o.Display.Show
	// What the user should know that is not the result (a description
	// that did not load): in the console, as restls run writes it,
	// unless the server that started this process keeps it (Notice).
	req.Notice = s.o.Notice
	if req.Notice == nil {
		req.Notice = func(msg string) { s.output("stderr", "restls dap: "+msg+"\n") }
	}
	req.Limits = engine.Limits{Timeout: s.o.Wall, Eval: s.o.Eval}
	req.AllowServices = s.o.AllowServices
	res, err := s.o.Run(ctx, snap, req)
	if s.o.ReportRuns {
		s.report(res, err)
	}
	if err != nil {
		s.output("stderr", fmt.Sprintf("restls dap: %v\n", err))
		return
	}
	s.contract(snap.Config.For(res.Kind), res.Calls)
	if res.Error != nil {
		s.output("stderr", fmt.Sprintf("%s: %s\n", res.Error.Name, res.Error.Message))
	} else {
		code = 0
		s.output("console", fmt.Sprintf("result: %s\n", res.Result))
	}
	if s.replay != nil {
		s.output("console", s.replay.compareResult(res))
	}
	if tc := s.testCase; tc != nil {
		if f := tc.Failures(res); len(f) > 0 {
			s.output("stderr", fmt.Sprintf("test case %q: failed\n%s\n", tc.Name, strings.Join(f, "\n")))
		} else {
			s.output("console", fmt.Sprintf("test case %q: passed\n", tc.Name))
		}
	}
}

// fixtures answer the replay's calls: the recorded run's answers (as the
// designer's Record writes them), or the fixtures file; never live.
func (rp *replay) fixtures(snap workspace.Snapshot, req engine.Request) (engine.Fixtures, error) {
	if rp.entry == nil {
		return engine.Fixtures{File: rp.file}, nil
	}
	kind := req.Kind
	if kind == "" {
		kind = snap.Kind(filepath.ToSlash(req.Path), req.Text).Kind
	}
	reg := snap.Registry(kind)
	doc, _, err := restclient.ReplayFixtures(rp.entry.Run.Calls, func(id string) (string, bool) {
		if reg == nil {
			return "", false
		}
		svc, ok := reg.Service(id)
		if !ok {
			return "", false
		}
		return svc.URL, true
	})
	if err != nil {
		return engine.Fixtures{}, err
	}
	return engine.Fixtures{Inline: doc, Name: rp.name}, nil
}

// compareCall says whether call i of the replay is the recorded one.
func (rp *replay) compareCall(i int, c *restclient.Call) string {
	if rp.entry == nil {
		return ""
	}
	name := fmt.Sprintf("replay: call %d (%s %s)", i+1, c.Method, c.ServiceID)
	calls := rp.entry.Run.Calls
	if i >= len(calls) {
		return fmt.Sprintf("%s: the recorded run made %d call(s); this one is new\n", name, len(calls))
	}
	rec := calls[i]
	var diffs []string
	if rec.Method != c.Method || rec.ServiceID != c.ServiceID {
		diffs = append(diffs, fmt.Sprintf("the recorded call was %s %s", rec.Method, rec.ServiceID))
	}
	if rec.URL != c.URL {
		diffs = append(diffs, fmt.Sprintf("URL %s, recorded %s", c.URL, rec.URL))
	}
	// Bodies as JSON text, whitespace aside: restls run --json indents
	// them.
	if !bytes.Equal(compactJSON(rec.RequestBody), compactJSON(c.RequestBody)) {
		diffs = append(diffs, "its request body differs from the recorded one")
	}
	answered := rec.Status != nil && c.Status != nil // a failed call has no body to compare
	switch {
	case statusOf(rec) != statusOf(c):
		diffs = append(diffs, fmt.Sprintf("answered %s, recorded %s", statusOf(c), statusOf(rec)))
	case answered && !bytes.Equal(compactJSON(rec.ResponseBody), compactJSON(c.ResponseBody)):
		diffs = append(diffs, "its response body differs from the recorded one")
	}
	if len(diffs) == 0 {
		return name + ": identical to the recorded call\n"
	}
	return name + ": differs: " + strings.Join(diffs, "; ") + "\n"
}

func statusOf(c *restclient.Call) string {
	switch {
	case c.ErrorCode != "":
		return "RestClientError " + c.ErrorCode
	case c.Status != nil:
		return strconv.Itoa(c.Status.Code)
	}
	return "no answer"
}

// compareResult says whether the replay ended as the recorded run did.
func (rp *replay) compareResult(res *dryrun.Result) string {
	if rp.entry == nil {
		return ""
	}
	rec := rp.entry.Run
	if n, m := len(res.Calls), len(rec.Calls); n != m {
		return fmt.Sprintf("replay: %d call(s) made, the recorded run made %d\n", n, m)
	}
	switch {
	case (rec.Error == nil) != (res.Error == nil):
		return "replay: the run ended otherwise than the recorded one (a result against an error)\n"
	case rec.Error != nil && (rec.Error.Name != res.Error.Name || rec.Error.Message != res.Error.Message):
		return fmt.Sprintf("replay: the error differs from the recorded one: %s: %s\n", rec.Error.Name, rec.Error.Message)
	case rec.Error == nil && !bytes.Equal(compactJSON(rec.Result), compactJSON(res.Result)):
		return fmt.Sprintf("replay: the result differs from the recorded one: %s\n", rec.Result)
	}
	return "replay: the result is identical to the recorded run's\n"
}

func compactJSON(b json.RawMessage) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}

// contract says in the console how each call's answer breaks its API
// description: the run engine's answer check (the notes restls run and
// POST /v1/run carry on each call), which is taken once the run has
// ended, so the notes follow the calls, before the result. Each line
// names the call as the console showed it and the note as the preview
// says it; they never fail the run. A note may quote the description or
// an answer, so each line is masked by the credentials of reg, the run's
// registry, as the run masks its own output (restclient.RegistryRedactor).
func (s *session) contract(reg *config.Registry, calls []*restclient.Call) {
	var red *restclient.Redactor
	for _, c := range calls {
		for _, n := range c.Contract {
			if red == nil {
				red = restclient.RegistryRedactor(reg)
			}
			s.output("console", red.String(fmt.Sprintf("? %s %s %s: contract (%s): %s\n", c.Method, c.ServiceID, c.URL, n.Rule, n.Message)))
		}
	}
}
