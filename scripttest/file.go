package scripttest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime/restclient"
)

// Suffix ends the name of every test file.
const Suffix = ".test.yaml"

// File is one parsed test file.
type File struct {
	// Path is the file as found.
	Path string
	// Script is the script's path, resolved against the file's directory.
	Script string
	// Source is the script's text.
	Source string
	// Kind is the kind the test file names (kind:), which nothing
	// overrides; "" when it names none, and the run engine decides it
	// with the snapshot's kind rule, as for every dry run.
	Kind config.Kind
	// Cases are the file's tests, in order.
	Cases []*Case

	doc  *yaml.Node // the file, for Update
	data []byte
	// edits are Update's changes, for the edit in place (inplace.go).
	edits []mapEdit
	// root is the directory the files the test file names must stay in,
	// its links followed (input.RootOf): its repository.
	root     string
	fixtures []*restclient.Fixture
	mockFile string
	// validate is the file's validateResponses; nil: Options decide.
	validate *bool
	// faults is the file's faults key, nil when absent.
	faults *FaultsSpec
}

// Case is one test of a file.
type Case struct {
	Name string
	// Line is where the case starts in its file.
	Line  int
	Input json.RawMessage
	// Expect holds the expectations as written.
	Expect Expect

	file     *File
	node     *yaml.Node // the case's mapping, for Update
	fixtures []*restclient.Fixture
	// faults is the case's faults key, nil when absent (the file's).
	faults *FaultsSpec
}

// Expect is what a case expects; an absent field is not checked.
type Expect struct {
	Result      any          `yaml:"result"`
	HasResult   bool         `yaml:"-"`
	ResultMatch any          `yaml:"resultMatch"`
	HasMatch    bool         `yaml:"-"`
	Error       *ExpectError `yaml:"error"`
	Calls       []ExpectCall `yaml:"calls"`
	HasCalls    bool         `yaml:"-"`
	// CallsInAnyOrder compares calls as a set.
	CallsInAnyOrder bool        `yaml:"callsInAnyOrder"`
	Logs            []ExpectLog `yaml:"logs"`
	HasLogs         bool        `yaml:"-"`
}

// none reports whether e checks nothing: no result, resultMatch, error,
// calls or logs.
func (e *Expect) none() bool {
	return !e.HasResult && !e.HasMatch && e.Error == nil && !e.HasCalls && !e.HasLogs
}

// ExpectError is the error a case expects the script to throw.
type ExpectError struct {
	Code    string `yaml:"code,omitempty"`
	Status  int    `yaml:"status,omitempty"`
	Name    string `yaml:"name,omitempty"`
	Message string `yaml:"message,omitempty"`
}

// ExpectCall is one expected api.rest.v1 call; empty fields are not
// compared.
type ExpectCall struct {
	Method    string `yaml:"method,omitempty"`
	ServiceID string `yaml:"serviceId,omitempty"`
	URL       string `yaml:"url,omitempty"`
	Body      any    `yaml:"body,omitempty"`
	HasBody   bool   `yaml:"-"`
	Status    int    `yaml:"status,omitempty"`
}

// ExpectLog is one expected console line: a string is a message of any
// level.
type ExpectLog struct {
	Level   string `yaml:"level,omitempty"`
	Message string `yaml:"message"`
}

// UnmarshalYAML accepts a plain string for a message.
func (l *ExpectLog) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		l.Message = n.Value
		return nil
	}
	type plain ExpectLog
	return input.DecodeYAMLNode(n, (*plain)(l))
}

// UnmarshalYAML notes whether body was given (null is a body).
func (c *ExpectCall) UnmarshalYAML(n *yaml.Node) error {
	type plain ExpectCall
	if err := input.DecodeYAMLNode(n, (*plain)(c)); err != nil {
		return err
	}
	c.HasBody = hasKey(n, "body")
	return nil
}

// rawFile is a test file as written: cases, or the file itself as one.
type rawFile struct {
	Script   string    `yaml:"script"`
	Kind     string    `yaml:"kind"`
	Fixtures yaml.Node `yaml:"fixtures"`
	Input    yaml.Node `yaml:"input"`
	Cases    []rawCase `yaml:"cases"`
	// ValidateResponses checks each answer against the services' API
	// descriptions (Options.ValidateResponses, which it overrides).
	ValidateResponses *bool `yaml:"validateResponses"`
	// Faults explores every case's error paths (FaultsSpec).
	Faults yaml.Node `yaml:"faults"`
	// The fields of a file that is one case.
	rawCaseFields `yaml:",inline"`
}

type rawCase struct {
	Name          string    `yaml:"name"`
	Input         yaml.Node `yaml:"input"`
	Fixtures      yaml.Node `yaml:"fixtures"`
	Faults        yaml.Node `yaml:"faults"`
	rawCaseFields `yaml:",inline"`
}

type rawCaseFields struct {
	Result          yaml.Node    `yaml:"result"`
	ResultMatch     yaml.Node    `yaml:"resultMatch"`
	Error           *ExpectError `yaml:"error"`
	Calls           []ExpectCall `yaml:"calls"`
	CallsInAnyOrder bool         `yaml:"callsInAnyOrder"`
	Logs            []ExpectLog  `yaml:"logs"`
}

// Error is a problem with a test file, at file:line, or file:line:col
// where the column is known.
type Error struct {
	File   string
	Line   int
	Column int
	Msg    string
}

func (e *Error) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Load reads and parses a test file and its script and fixtures. The test
// file too must stay inside its repository (input.RootOf), links followed:
// one found by the walk may be a link elsewhere.
func Load(path string) (*File, error) {
	return load(path, nil)
}

// load is Load with overlay (Options.Overlay) read in place of the
// files it names.
func load(path string, overlay map[string][]byte) (*File, error) {
	if text, ok := overlay[path]; ok {
		return parse(path, text, overlay)
	}
	data, err := input.ReadFileIn(input.RootOf(path), path, input.TestFile)
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read the test file: %v", err)}
	}
	return parse(path, data, overlay)
}

// Parse parses a test file's data; the script and a fixtures file it names
// are read relative to path's directory, and must stay inside its
// repository (input.RootOf), links followed: a test file a pull request
// adds cannot make restls test read, and print, a file of the machine
// that runs it. A script that is not text is refused unread and unshown.
func Parse(path string, data []byte) (*File, error) {
	return parse(path, data, nil)
}

// parse is Parse with overlay: a script named there (by its path as
// input.NamedPath resolves it) is that text, not the file on disk (an
// editor's unsaved buffer).
func parse(path string, data []byte, overlay map[string][]byte) (*File, error) {
	errs := problems{path: path}
	bad := func(line int, format string, a ...any) {
		errs.add(&Error{File: path, Line: line, Msg: fmt.Sprintf(format, a...)})
	}
	// The budgeted decode: the expectations, input and fixtures are
	// walked and decoded from this node, aliases expanded.
	doc, err := input.YAMLNode(data)
	if err != nil {
		return nil, yamlError(path, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, &Error{File: path, Line: 1, Msg: "a test file is a mapping with script, and cases or the expectations of one test (docs/ci.md)"}
	}
	root := doc.Content[0]
	var raw rawFile
	if err := input.DecodeYAMLNode(root, &raw); err != nil {
		// Every key and value the decode refuses; what follows is
		// checked too, but a line the decode already names is not
		// named again (a value it could not take reads as absent).
		errs.decode(err)
	}
	script, scriptErr := input.NamedPath(path, raw.Script)
	f := &File{Path: path, Script: script, doc: doc, data: data, root: input.RootOf(path), validate: raw.ValidateResponses}
	if raw.Script == "" {
		bad(root.Line, "no script: name the script to test, relative to this file (script: ../scripts/x.js)")
	} else if scriptErr != nil {
		bad(lineOf(root, "script"), "script: %v", scriptErr)
	} else if text, ok := overlay[f.Script]; ok {
		f.Source = string(text)
	} else if src, err := input.ReadFileIn(f.root, f.Script, input.Script); err != nil {
		hint := "; the path is relative to the test file"
		switch {
		case errors.Is(err, input.ErrOutside):
			hint = "; the path is relative to the test file and must stay inside its repository"
		case errors.Is(err, input.ErrNotText):
			hint = ""
		}
		bad(lineOf(root, "script"), "cannot read the script %s: %v%s", f.Script, unwrapPath(err), hint)
	} else {
		f.Source = string(src)
	}
	if raw.Kind != "" {
		k, err := config.ParseKind(raw.Kind)
		if err != nil {
			bad(lineOf(root, "kind"), "%v", err)
		}
		f.Kind = k
	}
	f.fixtures, f.mockFile, err = fixtures(f.root, path, data, &raw.Fixtures, true)
	errs.add(err)
	f.faults, err = parseFaults(path, &raw.Faults)
	errs.add(err)
	fileInput, err := jsonOf(&raw.Input)
	if err != nil {
		bad(raw.Input.Line, "input: %v", err)
	}
	if raw.Cases == nil {
		if hasKey(root, "name") {
			bad(lineOf(root, "name"), "name belongs to a case: put the case under cases, or leave name out")
		}
		c, err := newCase(f, root, filepath.Base(path), fileInput, raw.rawCaseFields)
		errs.add(err)
		f.Cases = []*Case{c}
		return errs.file(f)
	}
	if hasCaseFields(root) {
		bad(root.Line, "a file with cases keeps its expectations in the cases")
	}
	seqNode := valueOf(root, "cases")
	names := map[string]int{}
	for i, rc := range raw.Cases {
		if seqNode == nil || i >= len(seqNode.Content) {
			break
		}
		node := seqNode.Content[i]
		switch prev, ok := names[rc.Name]; {
		case rc.Name == "":
			bad(node.Line, "case %d has no name", i+1)
		case ok:
			bad(node.Line, "case %q is named again (first at line %d); names must differ", rc.Name, prev)
		default:
			names[rc.Name] = node.Line
		}
		input := fileInput
		if rc.Input.Kind != 0 {
			if input, err = jsonOf(&rc.Input); err != nil {
				bad(rc.Input.Line, "input: %v", err)
			}
		}
		c, err := newCase(f, node, rc.Name, input, rc.rawCaseFields)
		errs.add(err)
		var fx []*restclient.Fixture
		if rc.Fixtures.Kind != 0 {
			fx, _, err = fixtures(f.root, path, data, &rc.Fixtures, false)
			errs.add(err)
		}
		spec, err := parseFaults(path, &rc.Faults)
		errs.add(err)
		if c != nil {
			c.fixtures, c.faults = fx, spec
			f.Cases = append(f.Cases, c)
		}
	}
	if len(raw.Cases) == 0 {
		bad(lineOf(root, "cases"), "cases is empty")
	}
	return errs.file(f)
}

// maxProblems bounds the problems one test file reports.
const maxProblems = 100

// problems collects the problems of one test file.
type problems struct {
	path string
	list []*Error
	// decoded are the lines the YAML decode named.
	decoded map[int]bool
}

// add keeps err, an *Error (anything else is one at line 1), unless its
// line is one the decode named already.
func (p *problems) add(err error) {
	if err == nil || len(p.list) >= maxProblems {
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{File: p.path, Line: 1, Msg: err.Error()}
	}
	if p.decoded[e.Line] {
		return
	}
	p.list = append(p.list, e)
}

// decode keeps every problem of a YAML decode (yaml.LoadErrors), each at
// its line.
func (p *problems) decode(err error) {
	if p.decoded == nil {
		p.decoded = map[int]bool{}
	}
	var le *yaml.LoadErrors
	if !errors.As(err, &le) || len(le.Errors) == 0 {
		p.list = append(p.list, yamlError(p.path, err).(*Error))
		return
	}
	for _, one := range le.Errors {
		if len(p.list) >= maxProblems {
			break
		}
		e := yamlError(p.path, one).(*Error)
		p.list = append(p.list, e)
		p.decoded[e.Line] = true
	}
}

// file is f when there is no problem, else the problems.
func (p *problems) file(f *File) (*File, error) {
	if err := p.err(); err != nil {
		return nil, err
	}
	return f, nil
}

// err is nil, the one problem, or Errors in file order.
func (p *problems) err() error {
	switch len(p.list) {
	case 0:
		return nil
	case 1:
		return p.list[0]
	}
	out := Errors(slices.Clone(p.list))
	slices.SortStableFunc(out, func(a, b *Error) int { return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column)) })
	return out
}

// Errors are the problems of one test file, in file order: restls test
// reports them all at once.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap gives the problems to errors.As and errors.Is (the first
// *Error is the first in the file).
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

func newCase(f *File, node *yaml.Node, name string, input json.RawMessage, raw rawCaseFields) (*Case, error) {
	c := &Case{Name: name, Line: node.Line, Input: input, file: f, node: node}
	e := &c.Expect
	var err error
	if raw.Result.Kind != 0 {
		e.HasResult = true
		if e.Result, err = valueOfNode(&raw.Result); err != nil {
			return nil, &Error{File: f.Path, Line: raw.Result.Line, Msg: "result: " + err.Error()}
		}
	}
	if raw.ResultMatch.Kind != 0 {
		e.HasMatch = true
		if e.ResultMatch, err = valueOfNode(&raw.ResultMatch); err != nil {
			return nil, &Error{File: f.Path, Line: raw.ResultMatch.Line, Msg: "resultMatch: " + err.Error()}
		}
	}
	if e.HasResult && e.HasMatch {
		return nil, &Error{File: f.Path, Line: raw.ResultMatch.Line, Msg: "result and resultMatch: give one (result is the whole value, resultMatch a part of it)"}
	}
	if raw.Error != nil && (e.HasResult || e.HasMatch) {
		return nil, &Error{File: f.Path, Line: lineOf(node, "error"), Msg: "error and result: a script either returns or throws; give one"}
	}
	e.Error = raw.Error
	e.Calls, e.HasCalls = raw.Calls, hasKey(node, "calls")
	if e.HasCalls && e.Calls == nil {
		e.Calls = []ExpectCall{}
	}
	for i := range e.Calls {
		if e.Calls[i].HasBody {
			if e.Calls[i].Body, err = normalize(e.Calls[i].Body); err != nil {
				return nil, &Error{File: f.Path, Line: lineOf(node, "calls"), Msg: fmt.Sprintf("calls[%d].body: %v", i, err)}
			}
		}
	}
	e.CallsInAnyOrder = raw.CallsInAnyOrder
	e.Logs, e.HasLogs = raw.Logs, hasKey(node, "logs")
	return c, nil
}

// fixtures reads the fixtures node: a file name (relative to the test
// file, inside root) or an inline list. top is set for the file's own
// fixtures, whose lines are the test file's.
func fixtures(root, path string, data []byte, n *yaml.Node, top bool) ([]*restclient.Fixture, string, error) {
	switch {
	case n.Kind == 0:
		return nil, "", nil
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		file, err := input.NamedPath(path, n.Value)
		if err != nil {
			return nil, "", &Error{File: path, Line: n.Line, Msg: "fixtures: " + err.Error()}
		}
		if _, err := input.Inside(root, file, input.Fixtures); err != nil {
			return nil, "", &Error{File: path, Line: n.Line, Msg: fmt.Sprintf("fixtures: cannot read %s: %v", file, unwrapPath(err))}
		}
		m, err := restclient.LoadMock(file)
		if err != nil {
			return nil, "", &Error{File: path, Line: n.Line, Msg: "fixtures: " + err.Error()}
		}
		return m.Fixtures, file, nil
	case n.Kind == yaml.SequenceNode && top:
		m, err := restclient.ParseMock(path, data)
		if err != nil {
			return nil, "", mockError(path, n, err)
		}
		return m.Fixtures, path, nil
	case n.Kind == yaml.SequenceNode:
		text, err := yaml.Marshal(n)
		if err != nil {
			return nil, "", &Error{File: path, Line: n.Line, Msg: "fixtures: " + err.Error()}
		}
		// The list starts on its own line, so the fixtures' lines are the
		// test file's (where the list is written in block style).
		text = append([]byte(strings.Repeat("\n", max(n.Line-1, 0))), text...)
		m, err := restclient.ParseMock(path, text)
		if err != nil {
			return nil, "", mockError(path, n, err)
		}
		return m.Fixtures, path, nil
	}
	return nil, "", &Error{File: path, Line: n.Line, Msg: "fixtures: a fixtures file name or a list of fixtures (the --mock format, docs/runtime.md)"}
}

// mockError is a fixtures error at the line and column ParseMock names.
func mockError(path string, n *yaml.Node, err error) error {
	var me *restclient.MockError
	if !errors.As(err, &me) || me.Line == 0 {
		return &Error{File: path, Line: n.Line, Msg: "fixtures: " + err.Error()}
	}
	msg := me.Msg
	if me.Fixture > 0 {
		msg = fmt.Sprintf("fixture %d: %s", me.Fixture, msg)
	}
	return &Error{File: path, Line: me.Line, Column: me.Column, Msg: "fixtures: " + msg}
}

// yamlError turns a YAML error into an *Error at the problem's line.
func yamlError(path string, err error) error {
	var le *yaml.LoadError
	if errors.As(err, &le) {
		return &Error{File: path, Line: max(le.Mark.Line, 1), Column: le.Mark.Column, Msg: knownFieldMessage(le.Message)}
	}
	return &Error{File: path, Line: 1, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
}

// jsonOf converts a YAML value to JSON; an absent value is nil.
func jsonOf(n *yaml.Node) (json.RawMessage, error) {
	if n.Kind == 0 {
		return nil, nil
	}
	v, err := valueOfNode(n)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// valueOfNode decodes a YAML value into JSON's types (normalize).
func valueOfNode(n *yaml.Node) (any, error) {
	var v any
	if err := input.DecodeYAMLNode(n, &v); err != nil {
		return nil, err
	}
	return normalize(v)
}

// normalize turns a decoded YAML value into what decoding its JSON gives,
// numbers as json.Number, so expectations and results compare alike.
func normalize(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("not a JSON value: %v", err)
	}
	return decodeJSON(b)
}

func decodeJSON(b []byte) (any, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func valueOf(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func hasKey(m *yaml.Node, key string) bool {
	return m.Kind == yaml.MappingNode && valueOf(m, key) != nil
}

func lineOf(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i].Line
		}
	}
	return m.Line
}

func hasCaseFields(m *yaml.Node) bool {
	for _, k := range []string{"result", "resultMatch", "error", "calls", "callsInAnyOrder", "logs"} {
		if hasKey(m, k) {
			return true
		}
	}
	return false
}

// Find returns the test files under paths (none: "."), sorted: every file
// named, and the files ending in Suffix below every directory (leaving
// out what input.SkipDir leaves out: hidden directories and
// node_modules). The walk is bounded as every walk of a project is
// (input.MaxWalkEntries files and directories, all paths together;
// input.MaxWalkDepth directories deep): past either it is an error that
// names the bound and says what to do.
func Find(paths []string) ([]string, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var out []string
	seen := map[string]bool{}
	bound := input.NewWalkBound()
	bound.MaxEntries, bound.MaxDepth = maxWalkEntries, maxWalkDepth
	for _, root := range paths {
		fi, err := os.Stat(root)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s does not exist: name test files (*%s) or directories that hold them", root, Suffix)
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %v", root, unwrapPath(err))
		}
		if !fi.IsDir() {
			if p := filepath.Clean(root); !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
			continue
		}
		bound.Root(root)
		err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != root && input.SkipDir(d.Name()) {
				return filepath.SkipDir // not counted, as in the other walks
			}
			if err := bound.Visit(p, d.IsDir()); err != nil {
				if err.(*input.WalkLimitError).Depth {
					return fmt.Errorf("%v, where restls stops looking for test files (*%s): name the test files or a directory nearer them (restls test DIR)", err, Suffix)
				}
				return fmt.Errorf("%v, where restls stops looking for test files (*%s): name the test files or the directories that hold them (restls test DIR), or move what is no part of the project out of it", err, Suffix)
			}
			if d.IsDir() {
				return nil
			}
			if len(p) > len(Suffix) && p[len(p)-len(Suffix):] == Suffix && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// The bounds of Find's walk (input's, lowered by tests).
var maxWalkEntries, maxWalkDepth = input.MaxWalkEntries, input.MaxWalkDepth

// knownFields are the keys of a test file and of a case.
var knownFields = []string{"script", "kind", "fixtures", "input", "cases", "name", "result", "resultMatch", "error", "calls", "callsInAnyOrder", "logs",
	"code", "status", "message", "method", "serviceId", "url", "body", "level", "validateResponses", "faults", "outcomes", "fail", "expect"}

// knownFieldMessage rewrites the decoder's message for an unknown key
// to name the key and the nearest known one.
func knownFieldMessage(msg string) string {
	if key, ok := input.UnknownYAMLKey(msg); ok {
		return config.UnknownKeyMessage(key, knownFields) + " (docs/ci.md lists the keys)"
	}
	return msg
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
