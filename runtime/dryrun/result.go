package dryrun

import (
	"encoding/json"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/restclient"
)

// Result is the outcome of a run. It marshals to the object that
// `restls run --json` prints; a run from an editor or the designer also
// has Mode.
type Result struct {
	// Result is the returned value as JSON (null for undefined).
	Result json.RawMessage `json:"result"`
	// Error is the uncaught error, or nil when the script returned. A run
	// that could not start or whose process ended without a result has
	// one too, with a Code saying which (runtime/isolate's codes).
	Error *ScriptError `json:"error"`
	// Calls lists every api.rest.v1 call in order.
	Calls []*restclient.Call `json:"calls"`
	// Logs holds console output in order.
	Logs []LogEntry `json:"logs"`
	// Kind is the kind the script ran as (config.KindMap.Decide, or the
	// one named), so a caller sees which registry answered.
	Kind config.Kind `json:"kind,omitempty"`
	// Mode is how the calls were answered (ModeLive, ModeMock,
	// ModeRecord): set for runs from an editor or the designer, empty
	// (and absent from the JSON) for restls run.
	Mode string `json:"mode,omitempty"`
	// Values are the values the script's variables last had at the lines
	// that set them, when the run asked (an editor's or the designer's
	// dry run: the editor shows them inline, LSP textDocument/inlineValue).
	Values []LineValue `json:"values,omitempty"`
	// DurationMs is the whole run's wall time.
	DurationMs float64 `json:"-"`
}

// LineValue is the value a variable (or a property path: order.status)
// was last given where the script sets it: at Line and Column (1-based,
// byte column) of its name, shown as the preview shows values (cut,
// credentials hidden). LineHash is a hash of the line's text at the
// run, so that a surface drops the value once the line changes.
type LineValue struct {
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Name     string `json:"name"`
	Value    string `json:"value"`
	Times    int    `json:"times"`
	LineHash string `json:"lineHash"`
}

// LineHash is the hash LineValue.LineHash holds for a line's text (its
// end of line and trailing spaces left out).
func LineHash(line string) string {
	line = strings.TrimRight(line, " \t\r\n")
	h := fnv.New64a()
	h.Write([]byte(line))
	return strconv.FormatUint(h.Sum64(), 36)
}

// EventTimeoutBudget is the kind of a call's event when its answer took
// at least 80% of the read timeout in force (restclient.BudgetShare); the
// language server turns it into the timeout-budget diagnostic.
const EventTimeoutBudget = restclient.EventBudget

// Modes of a run, in Result.Mode.
const (
	ModeLive   = "live"
	ModeMock   = "mock"
	ModeRecord = "record"
)

// ExitCode is 0 when the script returned and 1 when it threw (or could not
// be compiled, or was interrupted).
func (r *Result) ExitCode() int {
	if r.Error != nil {
		return 1
	}
	return 0
}

// Threw reports whether the run ended with an error rather than a value.
func (r *Result) Threw() bool { return r.Error != nil }

// ScriptError is an uncaught error with its place in the script.
type ScriptError struct {
	// Name is the error's name: TypeError, RestClientError, ResponseError
	// (a non-2XX status), SyntaxError, TimeoutError, Error...
	Name    string `json:"name"`
	Message string `json:"message"`
	// Code is the RestClientError code, or script-timeout / canceled /
	// script-too-deep / result-too-deep / memory-limit, or one of
	// runtime/isolate's (runner-failed, runner-crashed, result-too-large).
	Code      string             `json:"code,omitempty"`
	ServiceID string             `json:"serviceId,omitempty"`
	Status    *restclient.Status `json:"status,omitempty"`
	// Body is the response body text of a non-2XX status.
	Body   *string `json:"body,omitempty"`
	Line   int     `json:"line,omitempty"`
	Column int     `json:"column,omitempty"`
	// SourceLine is the text of line Line, for a caret under Column.
	SourceLine string `json:"sourceLine,omitempty"`
	// Errors lists every error of a SyntaxError, the first being the one
	// Message, Line and Column describe, at most runtime.MaxSyntaxErrors.
	Errors []SourceError `json:"errors,omitempty"`
}

// SourceError is one error at a place in the script.
type SourceError struct {
	Message    string `json:"message"`
	Line       int    `json:"line"`
	Column     int    `json:"column"`
	SourceLine string `json:"sourceLine,omitempty"`
}

// LogEntry is one console call.
type LogEntry struct {
	// Level is log, info, warn, error or debug.
	Level   string `json:"level"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	// AfterCalls is how many calls came before it, for the terminal
	// preview; it does not travel in the JSON.
	AfterCalls int `json:"-"`
}
