package hints

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/jslevel"
	"github.com/restls/restls/openapi"
)

// Range is a half-open byte range [Start, End) in the document text.
type Range struct{ Start, End int }

// Document is an immutable script text with a lazily parsed AST; safe for
// concurrent use.
type Document struct {
	text string
	// src is text wrapped for the parser (NewDocumentIn), until parsed.
	src []byte

	parseOnce sync.Once
	parsed    *parseResult

	// The analysis of answer types (flow.go), computed once; base is an
	// earlier version's, for completion until this one's is computed.
	flowMu  sync.Mutex
	flowRes atomic.Pointer[flowResult]
	base    *flowBase

	// worst is the static worst case (worstcase.go) for the registry it
	// was computed with: the inlay hint, the hover and the diagnostic of
	// one version share it.
	worst atomic.Pointer[worstMemo]
}

// NewDocument returns a Document for text. Parsing happens on first use.
func NewDocument(text string) *Document { return &Document{text: text} }

// Text returns the document's text.
func (d *Document) Text() string {
	if d == nil {
		return ""
	}
	return d.text
}

// ItemKind classifies a completion item.
type ItemKind int

// Completion item kinds.
const (
	ItemFunction ItemKind = iota + 1 // api.rest.v1.get ...
	ItemModule                       // api, rest, v1
	ItemField                        // pathParams, status, body, connectionTimeout ...
	ItemValue                        // serviceIds, header values
	ItemProperty                     // header names
)

// CompletionItem is one completion candidate.
type CompletionItem struct {
	Label         string
	Kind          ItemKind
	Detail        string // one line, e.g. resolved url of a serviceId
	Documentation string // Markdown
	InsertText    string // snippet syntax ($1, ${1:name}) when Snippet
	Snippet       bool
	Replace       Range  // the text the insertion replaces
	FilterText    string // "" = Label
	SortText      string // "" = Label
	// LazyDoc reports that Documentation was left out
	// (CompleteOptions.LazyDocs);
	// ServiceDoc(reg, Label, disp) builds it.
	LazyDoc bool
}

// Completion is the result of AppendCompletion.
type Completion struct {
	Items []CompletionItem
	// Incomplete reports that typing more may produce items not listed.
	Incomplete bool
}

// CompleteOptions adjust AppendCompletion to a caller that answers every
// keystroke of an editor.
type CompleteOptions struct {
	// LazyDocs leaves the documentation of serviceId items out (LazyDoc is
	// set; ServiceDoc builds it), for an editor that fetches documentation
	// separately (LSP completionItem/resolve): a keystroke then does not
	// build up to 100 Markdown texts the editor shows one of.
	LazyDocs bool
	// Display adapts the documentation to its reader.
	Display Display
}

// Display adapts what the hints show to the client that reads them.
type Display struct {
	// Path turns the path of a configuration file into what the reader is
	// shown (the HTTP backend shows web clients paths relative to the
	// configuration root, never where the server keeps its files); nil
	// shows it as it is.
	Path func(file string) string
	// APIs are the API descriptions of the reader's services (package
	// openapi); nil: none, and the hints are those of the configuration
	// alone.
	APIs *openapi.Set
	// ConfiguredFor returns the other script kinds whose registry has a
	// usable serviceId id; nil: not asked. An unknown serviceId that
	// another kind has then says so, with a fix that writes the
	// "// restls-kind: K" first line.
	ConfiguredFor func(id string) []config.Kind
	// KindChosen: the user chose the reader's kind (config.KindFromExplicit:
	// the designer's "Script kind" selector), so a "// restls-kind:" line
	// would not change it; the unknown serviceId another kind has then
	// says to choose that kind instead, with no fix writing the line.
	KindChosen bool
	// TimeLimit is the limit restls.yaml's timeLimits sets for the
	// reader's script kind (0: none): a script whose static worst-case
	// time (WorstCaseOf) is above it gets worst-case-time.
	TimeLimit time.Duration
	// EngineLevel is the JavaScript level the platform's engine accepts
	// (restls.yaml's engine); Diagnose reports what is beyond it
	// (engine-syntax, engine-builtin). The zero value, jslevel.Latest,
	// reports nothing.
	EngineLevel jslevel.Level
}

// ConfiguredIn returns Display.ConfiguredFor over snap: the kinds other
// than kind whose registry has a usable id.
func ConfiguredIn(snap *config.Snapshot, kind config.Kind) func(id string) []config.Kind {
	if snap == nil {
		return nil
	}
	return func(id string) []config.Kind {
		var out []config.Kind
		for _, k := range config.Kinds {
			if k == kind {
				continue
			}
			if r := snap.For(k); r != nil && r.Loaded {
				if _, ok := r.Service(id); ok {
					out = append(out, k)
				}
			}
		}
		return out
	}
}

func (d Display) path(file string) string {
	if d.Path == nil || file == "" {
		return file
	}
	return d.Path(file)
}

// position is p as the reader is shown it.
func (d Display) position(p config.Position) string {
	p.File = d.path(p.File)
	return p.String()
}

// AppendCompletion returns the completion candidates at byte offset in
// doc, their items appended to dst as append would: the result's Items is
// the extended slice, which may share dst's array (a caller that answers
// every keystroke can pass the slice of an earlier answer it no longer
// needs; nil is a new slice).
func AppendCompletion(dst []CompletionItem, doc *Document, offset int, reg *config.Registry, o CompleteOptions) Completion {
	return complete(dst, doc, offset, reg, o)
}

// ServiceDoc is the Markdown documentation of serviceId id in reg (what
// AppendCompletion puts in its item), with paths shown through disp, or ""
// when reg has no such service.
func ServiceDoc(reg *config.Registry, id string, disp Display) string {
	if reg == nil {
		return ""
	}
	svc, ok := reg.Service(id)
	if !ok {
		return ""
	}
	return serviceDoc(reg, svc, disp)
}

// ParamInfo describes one parameter of a call.
type ParamInfo struct{ Label, Documentation string }

// SignatureInfo is the result of Signature.
type SignatureInfo struct {
	Label         string // e.g. "api.rest.v1.get(serviceId, path, header, timeouts?)"
	Documentation string
	Params        []ParamInfo
	ActiveParam   int
}

// Signature returns signature help when offset is inside the argument list
// of one of the five api.rest.v1 calls.
func Signature(doc *Document, offset int, reg *config.Registry) (SignatureInfo, bool) {
	return signature(doc, offset, reg)
}

// Hover is the result of HoverAt.
type Hover struct {
	Markdown string
	Range    Range
}

// HoverAt returns hover text for the element at offset: a call, a serviceId
// string or a TIMEOUTS key, with paths shown through disp.
func HoverAt(doc *Document, offset int, reg *config.Registry, disp Display) (Hover, bool) {
	return hoverAt(doc, offset, reg, disp)
}

// Severity of a diagnostic.
type Severity int

// Severities, most severe first.
const (
	SeverityError Severity = iota + 1
	SeverityWarning
	SeverityInfo
	SeverityHint
)

// Edit replaces Range with NewText.
type Edit struct {
	Range   Range
	NewText string
}

// Fix is a quick fix: a titled set of edits.
type Fix struct {
	Title     string
	Edits     []Edit
	Preferred bool
}

// Diagnostic is a problem found in a script.
type Diagnostic struct {
	Range    Range
	Severity Severity
	Code     string // stable, documented in docs/diagnostics.md (section "Script diagnostics")
	Message  string
	Fixes    []Fix // quick fixes for this diagnostic
	// Deprecated marks a use of something deprecated (shown struck
	// through).
	Deprecated bool
}

// Diagnose returns the problems found in doc, ordered by position, with
// paths in messages shown through disp (the zero Display shows them as
// they are).
func Diagnose(doc *Document, reg *config.Registry, disp Display) []Diagnostic {
	return diagnose(doc, reg, disp)
}

// Call describes one of the five api.rest.v1 calls (for docs, signature
// help, and the HTTP backend's GET /v1/calls).
type Call struct {
	Name          string // "get"
	Method        string // "GET"
	Signature     string // "api.rest.v1.get(serviceId, path, header, timeouts?)"
	Documentation string // Markdown, from docs/api.md
	Params        []ParamInfo
	HasPayload    bool
}

// Calls returns the five api.rest.v1 calls in spec order (get, delete,
// post, put, patch). The caller may modify the result.
func Calls() []Call {
	out := make([]Call, len(calls))
	for i, c := range calls {
		c.Params = append([]ParamInfo(nil), c.Params...)
		out[i] = c
	}
	return out
}

// onPanic receives a panic recovered at the API boundary. A broken
// invariant must not take the language server down: the call returns an
// empty result instead. Tests make it fatal so fuzzing finds the bug.
var onPanic = func(any) {}

// recovered is deferred by every exported entry point.
func recovered() {
	if r := recover(); r != nil {
		onPanic(r)
	}
}
