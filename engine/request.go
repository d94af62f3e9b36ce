package engine

import (
	"context"
	"encoding/json"
	"io"

	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/dryrun/history"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// Observer watches a run as it happens (dryrun.Observer): calls made and
// answered, console lines, statements reached (Request.Statements) and
// the result. A run in a child streams them to this process.
type Observer = dryrun.Observer

// Request is one dry run, as a surface asks for it. Only Text is needed;
// everything left empty is decided by the engine.
type Request struct {
	// Path is the script's absolute path, "" when it has none (an
	// unsaved document, the designer, stdin). The kind rule matches it,
	// the fixtures beside it are found from it, the history keys by it.
	Path string
	// Name is how messages and positions name the script ("" is Path as
	// Show shows it, else "-").
	Name string
	// Text is the script, unsaved edits included.
	Text string
	// Kind is the script's kind; "" lets the kind rule decide on the
	// snapshot's kind map (the script's "// restls-kind:" line first).
	// A surface passes a kind only when its user named one.
	Kind config.Kind
	// Input is context.input as JSON; nil is {}.
	Input json.RawMessage
	// Fixtures say what answers the calls; the zero value sends every
	// call to its service.
	Fixtures Fixtures
	// Limits bound this run; zero fields are the engine's.
	Limits Limits
	// AllowServices, when not nil, are the only serviceIds the script may
	// call (a role's limits); any other call fails with
	// service-not-allowed before reaching the network.
	AllowServices []string
	// Trace keeps each call's timing phases and header blocks (the
	// preview's, restls run -v and --json).
	Trace bool
	// Keep, when set, keeps the run in the history.
	Keep *Keep
	// Progress, when set, hears a line of progress.
	Progress func(message string)
	// Notice, when set, hears what the user should know about the run
	// that is not its result: a description that did not load, a record
	// file that could not be written (the run happened).
	Notice func(message string)
	// Recorded, when set and the run records (Fixtures.Record), hears
	// whether the record file was written: nil, or why not.
	Recorded func(err error)
	// Decided, when set, hears the kind and its registry once they are
	// decided, before the script runs (restls run reports the
	// configuration's errors there).
	Decided func(kind config.Kind, reg *config.Registry)
	// Observer, when set, watches the run; Statements asks it to hear
	// each statement reached, which instruments the program (costly: only
	// for a debugger or coverage).
	Observer   Observer
	Statements bool
	// Values keeps in the result the value each variable was last given
	// where the script sets it (Result.Values: the editor's inline
	// values); the program is instrumented for it.
	Values bool
	// Slot is an admission taken with Admit before the request was read;
	// nil takes one here. The caller releases it.
	Slot *Slot
	// Show is how a path is shown to the user (workspace.PathDisplay);
	// nil shows it as it is.
	Show func(path string) string

	// LogLevel is the run's log level ("debug" for restls run -v; "" is
	// the engine's Options.LogLevel), its lines written to Stderr (nil:
	// the engine's log keeps them when a child ends without a result).
	LogLevel string
	Stderr   io.Writer
	// Interrupt: when ctx ends, the run is interrupted as by Ctrl-C and
	// returns its result (a canceled run) instead of ctx's error (restls
	// run).
	Interrupt bool
}

// Fixtures say what answers a run's calls: at most one of Inline, File
// (or Beside) and None; Record and Live add to any.
type Fixtures struct {
	// Inline is a fixtures document (YAML or JSON) that came as text: the
	// designer's Mocks tab, a test case's.
	Inline []byte
	// File is a fixtures file; Beside, when File is empty, is the one
	// beside the script (workspace.MockFileBeside), if any.
	File   string
	Beside bool
	// Name is how Inline or File is shown in answers and messages ("" is
	// restclient.PastedMocks for Inline, File as Show shows it).
	Name string
	// None answers every call with no-fixture, from no file, after its
	// curl command is written (restls run --curl without --mock).
	None bool
	// Advice ends a no-fixture message; "" is the default advice.
	Advice string
	// Record is a file the answers of the calls sent to services are
	// written to (with fixtures: the calls they did not answer);
	// RecordHeaders the response headers it keeps (nil: the default).
	Record        string
	RecordHeaders []string
	// RecordText, when set, makes a live run a recording whose fixtures
	// document (YAML, Record's format, built by the same recorder from the
	// run's masked trace) it hears, with notes on the calls that became no
	// fixture: the designer's Record. The run's mode is record.
	RecordText func(doc []byte, notes []string, err error)
	// Live sends the calls no fixture answers to their services.
	Live bool
	// Parsed are fixtures already parsed, used as they are (their File,
	// Advice and Script included), in place of Inline and File: restls
	// test's, whose case's and file's fixtures keep their own file and
	// line, and the fault explorer's. A Child run's child reads them as
	// they are, each fixture's index and line included.
	Parsed *restclient.Mock
}

// Keep says where a run is kept in the history.
type Keep struct {
	// Store is where; nil is the engine's (Options.History).
	Store history.Store
	// Key is the script's key (default Request.Path); Source names the
	// surface (history.SourceEditor, SourceCLI, ...).
	Key    string
	Source string
}

func (r *Request) show(path string) string {
	if r.Show == nil {
		return path
	}
	return r.Show(path)
}

// shownName is how the script is named in messages.
func (r *Request) shownName() string {
	switch {
	case r.Name != "":
		return r.Name
	case r.Path != "":
		return r.show(r.Path)
	}
	return "-"
}

// RunFunc is Engine.Run's shape: what a surface is given to run scripts
// with (the engine's Run, or Run behind web's gate, which audits and
// limits it).
type RunFunc func(ctx context.Context, snap workspace.Snapshot, req Request) (*dryrun.Result, error)
