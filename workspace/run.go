package workspace

import (
	"errors"

	"github.com/restls/restls/config"
)

// RunRequest is the dry-run contract between a surface that asks for a
// run (the editor's restls.runScript, the designer's POST /v1/run) and
// the runner cmd/restls injects (lsp.Options.Runner).
type RunRequest struct {
	// URI and Path name the document; Path is empty for non-file URIs.
	URI  string
	Path string
	// Text is the document's current text, unsaved edits included.
	Text string
	Kind config.Kind
	// Input is the command's "input" argument as JSON, or nil.
	Input []byte
	// MockFile is the fixture file to answer calls from, RecordFile the
	// one to write the live answers to; empty for none. Both are absolute
	// paths the session was allowed to name (SessionOptions.MayUseFiles).
	MockFile   string
	RecordFile string
	// MockText is an inline fixture document (the --mock format, YAML or
	// JSON) answering the calls instead of the network, or nil: the
	// designer's Mocks tab, through POST /v1/run.
	MockText []byte
	// Snapshot is the registry the document sees.
	Snapshot *config.Snapshot
	// Environment names the project file's environment Snapshot was
	// read from, "" for the server's own (a designer session or an editor
	// that picked another one): the gate and the audit judge the run by it.
	Environment string
	// Progress reports a line of progress to the editor; safe to call from
	// any goroutine, never nil.
	Progress func(message string)
}

// ErrRunnerBusy is what a runner's error wraps when as many runs as it
// allows are already going; restls.runScript answers RequestFailed and
// POST /v1/run 429, both saying to try again.
var ErrRunnerBusy = errors.New("dry runs are busy")
