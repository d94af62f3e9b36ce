package check

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/restls/restls/config"
	"github.com/restls/restls/hints"
	"github.com/restls/restls/input"
	"github.com/restls/restls/textpos"
	"github.com/restls/restls/workspace"
	"github.com/restls/restls/workspace/index"
)

// DefaultInclude is the glob a script's path must match when no --include
// is given.
const DefaultInclude = "**/*.js"

// CodeUnreadable is the code of a finding about a script that could not
// be read; restls check then exits 2.
const CodeUnreadable = "check-unreadable"

// CodeIgnoreUnreadable is the code of the warning about a .gitignore (or
// .git/info/exclude) that could not be read: a directory, a FIFO, a link
// to a device, a file above 1 MiB. The walk goes on without its patterns.
const CodeIgnoreUnreadable = "check-ignore-unreadable"

// Options say what to check.
type Options struct {
	// Paths are files and directories; none means ".". A file named here is
	// checked whatever the globs and .gitignore say.
	Paths []string
	// Include and Exclude are globs (input.FileGlob) over a script's path
	// relative to the directory walked; Include defaults to DefaultInclude.
	Include, Exclude []string
	// Workspace is the project as the editor sees it: its configuration
	// checks the scripts and its problems are reported; its kind map
	// decides each script's kind after the "// restls-kind:" directive;
	// its API descriptions (and the recorded answers beside the scripts)
	// give the openapi-* diagnostics, and their files' problems are
	// reported. Run waits for the descriptions it needs.
	Workspace *workspace.Session
	// Context bounds the wait for descriptions; nil means no bound but
	// the loader's own.
	Context context.Context
	// Workers is how many scripts are diagnosed at once; 0 means one per
	// core.
	Workers int
	// Unused reports service-unused on the configuration entries that no
	// script checked, of a kind reading the entry's file, calls
	// (index.UnusedEntries, the language server's rule).
	Unused bool
	// Since, when set, reports the impact of a configuration change on
	// the scripts checked: the calls whose serviceId, resolved url or
	// authorization differs between Since.Config and the workspace's.
	Since *Since
}

// Since is the configuration a change is compared with (restls check
// --since REF: the configuration files as REF has them).
type Since struct {
	// Ref names it in messages.
	Ref string
	// Config is that configuration, loaded.
	Config *config.Snapshot
}

// Severity names, as every output writes them.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
	SeverityHint    = "hint"
)

// Finding is one diagnostic of a script or a configuration file. Lines and
// columns start at 1; columns count characters (Unicode code points:
// textpos.RunePos, config.Position.RuneCol), and a byte order mark that
// starts a file takes none, as in an editor.
type Finding struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine,omitempty"`
	EndColumn int    `json:"endColumn,omitempty"`
	Severity  string `json:"severity"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	// Kind is the script kind the script was checked as; empty for a
	// configuration finding.
	Kind config.Kind `json:"kind,omitempty"`
}

// Report is the outcome of Run.
type Report struct {
	// Scripts is the number of scripts checked.
	Scripts int `json:"scripts"`
	// Findings are ordered by file, line and column.
	Findings []Finding `json:"diagnostics"`
	// Unreadable counts the scripts (CodeUnreadable) and configuration
	// files named (config-file-not-found, -unreadable, -not-regular) that
	// could not be read.
	Unreadable int `json:"unreadable"`
}

// Count returns the number of findings of severity sev.
func (r *Report) Count(sev string) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == sev {
			n++
		}
	}
	return n
}

// ExitCode is restls check's exit status: 2 when a script or a
// configuration file named could not be read, 1 when there is an error (or, strict, a warning), else 0.
func (r *Report) ExitCode(strict bool) int {
	switch {
	case r.Unreadable > 0:
		return 2
	case r.Count(SeverityError) > 0, strict && r.Count(SeverityWarning) > 0:
		return 1
	}
	return 0
}

// ErrPath is returned, wrapped, when a path given cannot be walked.
var ErrPath = errors.New("cannot read path")

// Run finds the scripts under opts.Paths and diagnoses them. It fails only
// when a path given does not exist or cannot be listed; a script that
// cannot be read is a finding.
func Run(opts Options) (*Report, error) {
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	// Paths in findings and messages: the working directory is asked
	// once, not once per script as filepath.Abs would (two system calls
	// each: 60-100 ms of 10,000 scripts, before any is diagnosed).
	wd, wdErr := os.Getwd()
	absOf := func(f string) string {
		switch {
		case filepath.IsAbs(f):
			return filepath.Clean(f)
		case wdErr == nil:
			return filepath.Join(wd, f)
		}
		return f
	}
	snap := opts.Workspace.Snapshot()
	var since sinceDiffs
	if opts.Since != nil {
		since = diffSince(opts.Since, snap.Config)
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	show := func(p string) string { return displayPath(wd, p) }
	// The walk hands the scripts over as it finds them, a batch of one
	// directory's at a time, so checking starts with the first directory
	// instead of after the last: the walk and the wait for descriptions
	// were some 25 ms on one core before the first script of make
	// bench-oxlint's 10,000 was checked. Batches, not scripts: handing
	// each script over a channel woke a sleeping thread per script (some
	// 6,000 futex and 11,000 nanosleep calls for 10,000 scripts).
	batches := make(chan []*found, 2*workers)
	var failed atomic.Bool
	var waitErr error
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			abs := make([]string, 0, maxBatch)
			for b := range batches {
				if failed.Load() {
					continue
				}
				abs = abs[:0]
				for _, f := range b {
					abs = append(abs, f.abs)
				}
				// As an editor once its descriptions have loaded: a
				// command answers once, so it waits for those its scripts
				// see (the project's, and the recorded answers beside
				// them) before checking them.
				if err := opts.Workspace.WaitDescriptions(ctx, abs); err != nil {
					if failed.CompareAndSwap(false, true) {
						waitErr = err
					}
					continue
				}
				for _, f := range b {
					var calls *scriptCalls
					if opts.Unused {
						calls = &f.calls
					}
					f.findings = checkScript(f.file, f.abs, snap, show, calls, since)
				}
			}
		})
	}
	var scripts, batch []*found
	// The fixture and test files, checked against the descriptions
	// (checkFixtures): found by the same walk, looked for only when
	// there are descriptions.
	var fixtureFiles []string
	var addFixture func(string)
	if len(snap.APIs) > 0 {
		addFixture = func(p string) { fixtureFiles = append(fixtureFiles, p) }
	}
	warnings, err := walkScripts(opts.Paths, opts.Include, opts.Exclude, func(p string) {
		f := &found{file: p, abs: absOf(p)}
		if len(batch) == maxBatch || len(batch) > 0 && filepath.Dir(batch[0].abs) != filepath.Dir(f.abs) {
			batches <- batch
			batch = nil
		}
		scripts = append(scripts, f)
		batch = append(batch, f)
	}, func(dir string, names []string) { opts.Workspace.Listed(absOf(dir), names) }, addFixture)
	if len(batch) > 0 {
		batches <- batch
	}
	close(batches)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	// The project's descriptions, also when no script was found: their
	// problems are reported.
	if waitErr == nil {
		waitErr = opts.Workspace.WaitDescriptions(ctx, nil)
	}
	if waitErr != nil {
		return nil, fmt.Errorf("loading the API descriptions: %w", waitErr)
	}
	rep := &Report{Scripts: len(scripts)}
	// The walk's order, not Find's sorted one: the findings are sorted by
	// file below, and a file's own stay in their order.
	for _, f := range scripts {
		for _, fd := range f.findings {
			if fd.Code == CodeUnreadable {
				rep.Unreadable++
			}
		}
		rep.Findings = append(rep.Findings, f.findings...)
	}
	for _, f := range warnings {
		f.File = show(f.File)
		rep.Findings = append(rep.Findings, f)
	}
	fixtures, err := checkFixtures(ctx, opts, snap, show, fixtureFiles)
	if err != nil {
		return nil, fmt.Errorf("checking the fixtures: %w", err)
	}
	rep.Findings = append(rep.Findings, fixtures...)
	for _, p := range opts.Workspace.DescriptionProblems(snap.APIs) {
		rep.Findings = append(rep.Findings, Finding{File: show(p.File), Line: max(p.Line, 1), Column: 1,
			Severity: configSeverity(p.Severity), Code: p.Code, Message: p.Message})
	}
	if opts.Unused {
		called := make([]scriptCalls, len(scripts))
		for i, f := range scripts {
			called[i] = f.calls
		}
		rep.Findings = append(rep.Findings, unusedFindings(snap.Config, called, show)...)
	}
	for _, f := range configFindings(snap.Config, show) {
		if unreadableConfig[f.Code] {
			rep.Unreadable++
		}
		rep.Findings = append(rep.Findings, f)
	}
	sort.SliceStable(rep.Findings, func(i, j int) bool {
		a, b := rep.Findings[i], rep.Findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return rep, nil
}

// maxBatch is how many scripts the walk hands over at once, at most.
const maxBatch = 32

// found is a script the walk found, and what checking it found.
type found struct {
	file, abs string
	findings  []Finding
	calls     scriptCalls
}

// checkScript diagnoses one script; with calls, it also records the
// serviceIds the script calls with a literal.
func checkScript(file, abs string, snap workspace.Snapshot, show func(string) string, calls *scriptCalls, since sinceDiffs) []Finding {
	// Read into the buffer the parser takes the script in, with room for
	// the function it is wrapped in: no copy of the text.
	buf, err := input.ReadFileRoom(file, input.Script, input.Room{Before: hints.WrapBefore, After: hints.WrapAfter})
	var fe *input.FileError
	if errors.As(err, &fe) {
		// Not a regular file, too large, not text: the file is named,
		// its content never shown.
		return []Finding{{File: file, Line: 1, Column: 1, Severity: SeverityError, Code: CodeUnreadable,
			Message: fmt.Sprintf("script not checked: %v", err)}}
	}
	if err != nil {
		return []Finding{{File: file, Line: 1, Column: 1, Severity: SeverityError, Code: CodeUnreadable,
			Message: fmt.Sprintf("cannot read the script: %v; check the path and its permissions", unwrapPath(err))}}
	}
	// One document for the diagnostics and the call sites: it is parsed
	// once, in buf, which is never written again.
	doc := hints.NewDocumentIn(buf)
	text := doc.Text()
	kind := snap.Kind(filepath.ToSlash(abs), text).Kind
	var sinceFindings []Finding
	if calls != nil || since.any(kind) {
		var m *textpos.Mapper
		for _, c := range hints.CallSites(doc) {
			if c.Dynamic || c.IDRange.End == 0 {
				continue
			}
			if calls != nil {
				calls.ids = append(calls.ids, c.ServiceID)
			}
			for _, d := range since[kind][c.ServiceID] {
				if m == nil {
					m = textpos.NewFile(text)
				}
				start, end := m.RunePos(textpos.ByteOffset(c.IDRange.Start)), m.RunePos(textpos.ByteOffset(c.IDRange.End))
				sinceFindings = append(sinceFindings, Finding{File: file, Line: start.Line, Column: start.Col, EndLine: end.Line, EndColumn: end.Col,
					Severity: SeverityWarning, Code: d.code, Message: d.message, Kind: kind})
			}
		}
		if calls != nil {
			calls.kind = kind
		}
	}
	// As the language server: no serviceId checks against a registry
	// that offers no hints (config.HintState).
	reg := snap.Registry(kind)
	diags := hints.Diagnose(doc, reg, hints.Display{Path: show, APIs: snap.APIsFor(abs, reg), ConfiguredFor: hints.ConfiguredIn(snap.Config, kind), TimeLimit: snap.TimeLimit(kind), EngineLevel: snap.EngineLevel})
	if len(diags) == 0 {
		return sinceFindings
	}
	// A script read from disk: a byte order mark takes no column, as in
	// the editor.
	m := textpos.NewFile(text)
	out := make([]Finding, 0, len(diags)+len(sinceFindings))
	out = append(out, sinceFindings...)
	for _, d := range diags {
		start, end := m.RunePos(textpos.ByteOffset(d.Range.Start)), m.RunePos(textpos.ByteOffset(d.Range.End))
		out = append(out, Finding{File: file, Line: start.Line, Column: start.Col, EndLine: end.Line, EndColumn: end.Col,
			Severity: severityName(d.Severity), Code: d.Code, Message: d.Message, Kind: kind})
	}
	return out
}

// scriptCalls are the serviceIds a script of kind calls with a literal.
type scriptCalls struct {
	kind config.Kind
	ids  []string
}

// unusedFindings are the service-unused informations of the entries no
// script checked calls.
func unusedFindings(snap *config.Snapshot, called []scriptCalls, show func(string) string) []Finding {
	byKind := map[config.Kind]map[string]bool{}
	for _, sc := range called {
		if byKind[sc.kind] == nil {
			byKind[sc.kind] = map[string]bool{}
		}
		for _, id := range sc.ids {
			byKind[sc.kind][id] = true
		}
	}
	var out []Finding
	for _, u := range index.UnusedEntries(snap.Entries(), func(id string, kinds []config.Kind) bool {
		for _, k := range kinds {
			if byKind[k][id] {
				return true
			}
		}
		return false
	}) {
		at := u.Entry.IDAt
		if at.Line == 0 {
			at = u.Entry.Defined
		}
		out = append(out, Finding{File: show(u.Entry.Defined.File), Line: at.Line, Column: max(at.RuneCol, 1),
			Severity: SeverityInfo, Code: index.CodeServiceUnused, Message: u.Message})
	}
	return out
}

// unwrapPath drops the path from an *fs.PathError, which the finding names
// already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func severityName(s hints.Severity) string {
	switch s {
	case hints.SeverityError:
		return SeverityError
	case hints.SeverityWarning:
		return SeverityWarning
	case hints.SeverityInfo:
		return SeverityInfo
	}
	return SeverityHint
}

func configSeverity(s config.Severity) string {
	switch s {
	case config.SeverityError:
		return SeverityError
	case config.SeverityWarning:
		return SeverityWarning
	}
	return SeverityInfo
}

// unreadableConfig are the configuration codes of a file named that
// cannot be read: unreadable input, as a script that cannot be read.
var unreadableConfig = map[string]bool{
	config.CodeFileNotFound: true, config.CodeFileUnreadable: true, config.CodeNotRegularFile: true,
}

// configFindings are the snapshot's diagnostics, with paths shown as the
// scripts' are.
func configFindings(snap *config.Snapshot, show func(string) string) []Finding {
	var out []Finding
	// A broken file can have thousands of diagnostics: whether a path is a
	// directory is asked once.
	isDir := map[string]bool{}
	for _, d := range snap.Diagnostics() {
		msg := d.Message
		if d.ServiceID != "" && !strings.Contains(msg, d.ServiceID) {
			msg = "serviceId " + d.ServiceID + ": " + msg
		}
		f := Finding{File: show(d.File), Line: d.Line, Column: d.RuneCol,
			Severity: configSeverity(d.Severity), Code: d.Code, Message: msg}
		dir, seen := isDir[d.File]
		if !seen {
			fi, err := os.Stat(d.File)
			dir = err == nil && fi.IsDir()
			isDir[d.File] = dir
		}
		if dir {
			// About a directory ("no configuration found in ."): no line.
			f.Line, f.Column = 0, 0
		}
		out = append(out, f)
	}
	return out
}

// displayPath shows an absolute path below the working directory relative
// to it, as the scripts' paths are, so findings about one file group.
func displayPath(wd, p string) string {
	if !filepath.IsAbs(p) || wd == "" {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return p
}
