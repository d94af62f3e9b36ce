package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v4"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	"github.com/restls/restls/jslevel"
)

// FileName is the name of the project file.
const FileName = "restls.yaml"

// Diagnostic codes of the project file (docs/diagnostics.md).
const (
	// CodeUnknownKey: a key the project file does not have.
	CodeUnknownKey = "project-unknown-key"
	// CodeInvalid: a value of the wrong type or form, or a file that is
	// not YAML.
	CodeInvalid = "project-invalid"
)

// ErrUnknownEnvironment is returned, wrapped, by Project.Sources for an
// environment the file does not define.
var ErrUnknownEnvironment = errors.New("unknown environment")

// rawSources are the configuration keys: the names of the editor
// settings (configRoot, properties, ...) and of the CLI flags.
type rawSources struct {
	ConfigRoot     string   `yaml:"configRoot"`
	Properties     []string `yaml:"properties"`
	ServiceXML     string   `yaml:"serviceXml"`
	HandlerXML     string   `yaml:"handlerXml"`
	PlatformConfig string   `yaml:"platformConfig"`
	RegistryURL    string   `yaml:"registryUrl"`
}

type rawCheck struct {
	Include []string `yaml:"include"`
	Exclude []string `yaml:"exclude"`
	Strict  *bool    `yaml:"strict"`
	Disable []string `yaml:"disable"`
}

// rawProject is the file as written. keys.go derives the known keys from
// its yaml tags, and schema_test.go checks the JSON Schema against them.
type rawProject struct {
	rawSources         `yaml:",inline"`
	Environments       map[string]rawSources `yaml:"environments"`
	DefaultEnvironment string                `yaml:"defaultEnvironment"`
	// ScriptKinds and OpenAPI map globs and serviceIds: decoded by hand,
	// in the order written (the first matching glob wins).
	ScriptKinds yaml.Node `yaml:"scriptKinds"`
	OpenAPI     yaml.Node `yaml:"openapi"`
	Check       rawCheck  `yaml:"check"`
	Roles       rawRoles  `yaml:"roles"`
	// ValidateResponses is restls test's --validate-responses default.
	ValidateResponses *bool       `yaml:"validateResponses"`
	Coverage          rawCoverage `yaml:"coverage"`
	// Faults are the fault explorer's defaults (issue 36).
	Faults rawFaults `yaml:"faults"`
	// TimeLimits map script kinds to milliseconds: decoded by hand.
	TimeLimits yaml.Node `yaml:"timeLimits"`
	// Engine is the platform engine's language level (jslevel.Parse),
	// decoded by hand to name its line.
	Engine yaml.Node `yaml:"engine"`
}

// rawCoverage is the coverage key: restls test --coverage's defaults.
type rawCoverage struct {
	Enabled *bool    `yaml:"enabled"`
	Min     *float64 `yaml:"min"`
	Dir     string   `yaml:"dir"`
}

// CoverageSettings are restls test's coverage defaults from the file;
// its flags override them one by one.
type CoverageSettings struct {
	// Enabled, when set, is --coverage's default; Min, when set,
	// --coverage-min's (a percentage of lines, 0 to 100), which implies
	// coverage.
	Enabled *bool
	Min     *float64
	// Dir is where the reports go (--coverage-dir), resolved against the
	// file's directory; "" is the default.
	Dir string
}

type rawFaults struct {
	Fail []string `yaml:"fail"`
}

// FaultVerdicts are the verdicts faults.fail may name (package faults
// owns their meaning; handled never fails).
var FaultVerdicts = []string{"escaped", "crashed", "misread", "unanswered"}

// rawRoles is the roles key: serve --http's roles for the users an
// identity provider or an authenticating proxy names (docs/http.md).
type rawRoles struct {
	Default string              `yaml:"default"`
	Groups  map[string]rawGrant `yaml:"groups"`
}

type rawGrant struct {
	Role         string   `yaml:"role"`
	Environments []string `yaml:"environments"`
	Services     []string `yaml:"services"`
}

// CheckSettings are restls check's defaults from the file; its flags
// override them one by one.
type CheckSettings struct {
	// Include and Exclude are globs (input.FileGlob) over a script's path
	// relative to the directory walked, as --include and --exclude.
	Include, Exclude []string
	// Strict, when set, is --strict's default.
	Strict *bool
	// Disable lists diagnostic codes restls check does not report.
	Disable []string
}

// Project is a project file, decoded and resolved: every path in it is
// relative to the file's directory, and is joined to it here.
type Project struct {
	// File is the project file's path as found or named.
	File string
	// Config is the configuration at the top of the file, before any
	// environment.
	Config config.Sources
	// environments are the named environments, each the keys it sets
	// (the top-level configuration supplies the rest), and
	// defaultEnvironment the one used when none is asked for (the file
	// must name one when it defines environments). Unexported: only the
	// one rule that picks an environment reads them (environment.go;
	// TestEnvironmentRule holds every other file of the module to it).
	environments       map[string]config.Sources
	defaultEnvironment string
	// ScriptKinds maps globs to kinds in the order written, as the editor
	// setting scriptKinds and restls check --kind-map.
	ScriptKinds config.KindMap
	// OpenAPI attaches a description (a path, resolved, or an http(s)
	// URL) to a serviceId, as the editor setting openapi and --openapi.
	OpenAPI map[string]string
	Check   CheckSettings
	// ValidateResponses, when set, is restls test's --validate-responses
	// default (a test file's validateResponses overrides both).
	ValidateResponses *bool
	// Coverage are restls test's coverage defaults.
	Coverage CoverageSettings
	// FaultsFail, when not nil, are the verdicts of the fault explorer
	// that fail a script (faults.fail: restls faults, restls test
	// --faults, the editor's warnings); a test file's faults.fail
	// overrides it.
	FaultsFail []string
	// Roles map groups (or the values of serve --http's --role-claim) to
	// roles; nil when the file has no roles key.
	Roles *Roles
	// TimeLimits are the static worst-case times above which a script of
	// a kind gets worst-case-time (timeLimits; nil: none).
	TimeLimits map[config.Kind]time.Duration
	// EngineLevel is the JavaScript level the platform's engine accepts
	// (the engine key; jslevel.Latest when absent): the editor and restls
	// check report what is beyond it, and dry runs refuse it.
	EngineLevel jslevel.Level
	// Diagnostics are the file's problems. With an error among them the
	// project must not be used: a typo would silently check, test or run
	// against another configuration.
	Diagnostics []config.Diagnostic
}

// HasErrors reports whether a diagnostic of the file is an error.
func (p *Project) HasErrors() bool {
	return slices.ContainsFunc(p.Diagnostics, func(d config.Diagnostic) bool { return d.Severity == config.SeverityError })
}

// FindProject looks for restls.yaml in start (a directory, or a file whose
// directory is searched) and each directory above it, up to the root its
// files must stay in (input.RootOf): the top of its git repository;
// outside one, the working directory when it holds start (so `restls
// check scripts` finds the file `restls check` finds from the same
// directory), else start's own directory only, so that a file in a shared
// parent such as /tmp is never picked up. It returns the file's path ("" when there is
// none), relative to the working directory when start was relative.
func FindProject(start string) string {
	if start == "" {
		start = "."
	}
	dir := start
	if fi, err := os.Stat(start); err != nil || !fi.IsDir() {
		dir = filepath.Dir(start)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	// RootOf of a file in abs: outside a repository, abs itself unless the
	// working directory holds it.
	top := input.RootOf(filepath.Join(abs, FileName))
	for d, rel := abs, dir; ; d, rel = filepath.Dir(d), filepath.Join(rel, "..") {
		if fi, err := os.Stat(filepath.Join(d, FileName)); err == nil && fi.Mode().IsRegular() {
			if filepath.IsAbs(start) {
				return filepath.Join(d, FileName)
			}
			return filepath.Join(rel, FileName)
		}
		if top == "" || d == top || filepath.Dir(d) == d {
			return ""
		}
	}
}

// LoadProject reads and decodes the project file at file. It fails only
// when the file cannot be read (a missing file wraps fs.ErrNotExist);
// every problem of its content is a diagnostic of the Project returned.
func LoadProject(file string) (*Project, error) {
	data, err := input.ReadFile(file, input.Config)
	var fe *input.FileError
	if errors.As(err, &fe) {
		return nil, fmt.Errorf("%s: %w", file, err) // a FileError's message leaves out the path
	} else if err != nil {
		return nil, err
	}
	return ParseProject(file, data), nil
}

// ParseProject decodes data, the content of the project file at file.
// Its diagnostics are in the order of the file.
func ParseProject(file string, data []byte) *Project {
	p := &Project{File: file}
	p.parse(data)
	slices.SortStableFunc(p.Diagnostics, func(a, b config.Diagnostic) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.RuneCol - b.RuneCol
	})
	return p
}

func (p *Project) parse(data []byte) {
	file := p.File
	diag := func(line, col int, code, format string, a ...any) {
		p.Diagnostics = append(p.Diagnostics, config.Diagnostic{
			Position: config.Position{File: file, Line: max(line, 1), RuneCol: max(col, 1)},
			Severity: config.SeverityError, Code: code, Message: fmt.Sprintf(format, a...)})
	}
	doc, err := input.YAMLNode(data)
	if err != nil {
		line, col, msg := yamlPlace(err)
		diag(line, col, CodeInvalid, "%s; restls.yaml is YAML (docs/configuration.md)", msg)
		return
	}
	if doc.Kind == 0 {
		return // an empty file: a project with every default
	}
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		diag(root.Line, root.Column, CodeInvalid, "restls.yaml is a mapping of keys (configRoot, environments, scriptKinds, openapi, check); see docs/configuration.md")
		return
	}
	for _, u := range unknownKeys(root) {
		msg := fmt.Sprintf("unknown key %q", u.key)
		if u.path != "" {
			msg += " in " + u.path
		}
		if u.near != "" {
			msg += fmt.Sprintf(": did you mean %q?", u.near)
		} else {
			msg += ": the keys here are " + strings.Join(u.known, ", ")
		}
		diag(u.node.Line, u.node.Column, CodeUnknownKey, "%s (docs/configuration.md, \"restls.yaml\")", msg)
	}
	if len(p.Diagnostics) > 0 {
		return
	}
	var raw rawProject
	if err := input.DecodeYAMLNode(root, &raw); err != nil {
		var le *yaml.LoadErrors
		if errors.As(err, &le) {
			for _, e := range le.Errors {
				msg := e.Message
				if key := keyAt(root, "", e.Mark.Line, e.Mark.Column); key != "" {
					msg = key + ": " + msg
				}
				diag(e.Mark.Line, e.Mark.Column, CodeInvalid, "%s (docs/configuration.md, \"restls.yaml\")", msg)
			}
		} else {
			line, col, msg := yamlPlace(err)
			diag(line, col, CodeInvalid, "%s", msg)
		}
		return
	}
	dir := filepath.Dir(file)
	p.Config = raw.rawSources.resolve(dir)
	p.decodeEnvironments(raw, dir, root, diag)
	p.ScriptKinds = p.decodeKinds(&raw.ScriptKinds, diag)
	p.OpenAPI = p.decodeOpenAPI(&raw.OpenAPI, dir, diag)
	p.Roles = decodeRoles(raw.Roles, root, diag)
	p.TimeLimits = decodeTimeLimits(&raw.TimeLimits, diag)
	p.ValidateResponses = raw.ValidateResponses
	p.Coverage = CoverageSettings{Enabled: raw.Coverage.Enabled, Min: raw.Coverage.Min}
	if d := raw.Coverage.Dir; d != "" {
		p.Coverage.Dir = filepath.Join(dir, d)
	}
	if m := raw.Coverage.Min; m != nil && (*m < 0 || *m > 100) {
		n := valueOf(root, "coverage")
		diag(n.Line, n.Column, CodeInvalid, "coverage: min %v is not a percentage: give a number from 0 to 100", *m)
		p.Coverage.Min = nil
	}
	if raw.Faults.Fail != nil {
		p.FaultsFail = []string{}
		for _, v := range raw.Faults.Fail {
			if !slices.Contains(FaultVerdicts, v) {
				n := valueOf(root, "faults")
				diag(n.Line, n.Column, CodeInvalid, "faults: fail: verdict %q: use %s (docs/runtime.md, \"Error paths\")", v, strings.Join(FaultVerdicts, ", "))
				continue
			}
			p.FaultsFail = append(p.FaultsFail, v)
		}
	}
	p.EngineLevel = decodeEngine(&raw.Engine, diag)
	p.Check = CheckSettings{Include: raw.Check.Include, Exclude: raw.Check.Exclude, Strict: raw.Check.Strict, Disable: raw.Check.Disable}
	for _, list := range [][]string{raw.Check.Include, raw.Check.Exclude} {
		for _, g := range list {
			if _, err := input.FileGlob(g); err != nil {
				n := valueOf(root, "check")
				diag(n.Line, n.Column, CodeInvalid, "check: glob %q: %v: %s", g, err, input.GlobSyntax)
			}
		}
	}
}

type diagFunc func(line, col int, code, format string, a ...any)

// decodeEngine reads engine: one of jslevel.Names.
func decodeEngine(n *yaml.Node, diag diagFunc) jslevel.Level {
	if n.Kind == 0 {
		return jslevel.Latest
	}
	if n.Kind != yaml.ScalarNode {
		diag(n.Line, n.Column, CodeInvalid, "engine names the platform engine's JavaScript level, one of %s (docs/configuration.md, \"engine\")", strings.Join(jslevel.Names(), ", "))
		return jslevel.Latest
	}
	l, err := jslevel.Parse(n.Value)
	if err != nil {
		diag(n.Line, n.Column, CodeInvalid, "engine: %v (docs/configuration.md, \"engine\")", err)
		return jslevel.Latest
	}
	return l
}

// decodeKinds reads scriptKinds: a mapping of globs to kinds, in order.
func (p *Project) decodeKinds(n *yaml.Node, diag diagFunc) config.KindMap {
	if n.Kind == 0 {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		diag(n.Line, n.Column, CodeInvalid, "scriptKinds maps globs to script kinds, e.g. \"**/tasks/**\": scriptTask")
		return nil
	}
	var out config.KindMap
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		kind, err := config.ParseKind(v.Value)
		if err != nil || v.Kind != yaml.ScalarNode {
			diag(v.Line, v.Column, CodeInvalid, "scriptKinds %q: %v", k.Value, err)
			continue
		}
		g, err := input.FileGlob(k.Value)
		if err != nil {
			diag(k.Line, k.Column, CodeInvalid, "scriptKinds %q: %v: %s", k.Value, err, input.GlobSyntax)
			continue
		}
		out = append(out, config.KindGlob{Glob: g, Kind: kind})
	}
	return out
}

// decodeOpenAPI reads openapi: a mapping of serviceIds to a description's
// path (relative to the file) or http(s) URL.
func (p *Project) decodeOpenAPI(n *yaml.Node, dir string, diag diagFunc) map[string]string {
	if n.Kind == 0 {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		diag(n.Line, n.Column, CodeInvalid, "openapi maps serviceIds to a description's path or URL, e.g. crm-customers: apis/crm.yaml")
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode || v.Value == "" || k.Value == "" {
			diag(v.Line, v.Column, CodeInvalid, "openapi %q: want the path or http(s) URL of an OpenAPI description", k.Value)
			continue
		}
		out[k.Value] = resolvePath(dir, v.Value)
	}
	return out
}

// decodeTimeLimits reads timeLimits: a mapping of script kinds to a
// positive whole number of milliseconds.
func decodeTimeLimits(n *yaml.Node, diag diagFunc) map[config.Kind]time.Duration {
	if n.Kind == 0 {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		diag(n.Line, n.Column, CodeInvalid, "timeLimits maps script kinds to milliseconds, e.g. validationScript: 5000")
		return nil
	}
	out := map[config.Kind]time.Duration{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		kind, err := config.ParseKind(k.Value)
		if err != nil {
			diag(k.Line, k.Column, CodeInvalid, "timeLimits %q: %v", k.Value, err)
			continue
		}
		ms, err := strconv.Atoi(v.Value)
		if v.Kind != yaml.ScalarNode || err != nil || ms <= 0 {
			diag(v.Line, v.Column, CodeInvalid, "timeLimits %s: %q is not a positive whole number of milliseconds", k.Value, v.Value)
			continue
		}
		out[kind] = time.Duration(ms) * time.Millisecond
	}
	return out
}

func (r rawSources) resolve(dir string) config.Sources {
	s := config.Sources{ConfigRoot: resolvePath(dir, r.ConfigRoot), ServiceXML: resolvePath(dir, r.ServiceXML),
		HandlerXML: resolvePath(dir, r.HandlerXML), PlatformConfig: resolvePath(dir, r.PlatformConfig), RegistryURL: r.RegistryURL}
	for _, f := range r.Properties {
		s.Properties = append(s.Properties, resolvePath(dir, f))
	}
	return s
}

// resolvePath joins a path the file names to the file's directory; URLs
// and absolute paths stay as written.
func resolvePath(dir, p string) string {
	if p == "" || strings.HasPrefix(p, "http://") || strings.HasPrefix(p, "https://") {
		return p
	}
	p = filepath.FromSlash(p)
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// yamlPlace is the line, column and message of a YAML error.
func yamlPlace(err error) (line, col int, msg string) {
	var le *yaml.LoadError
	if errors.As(err, &le) {
		return le.Mark.Line, le.Mark.Column, le.Message
	}
	return 1, 1, strings.TrimPrefix(err.Error(), "yaml: ")
}

// keyOf and valueOf find a top-level key's node and its value's; a zero
// node when the key is absent.
func keyOf(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i]
		}
	}
	return &yaml.Node{}
}

func valueOf(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return &yaml.Node{}
}

// keyAt is the dotted path of the key whose value is at line and col
// below m (a decoder's error names the value, not its key).
func keyAt(m *yaml.Node, path string, line, col int) string {
	if m.Kind != yaml.MappingNode && m.Kind != yaml.SequenceNode {
		return ""
	}
	for i, c := range m.Content {
		sub := path
		if m.Kind == yaml.MappingNode {
			if i%2 == 0 {
				continue
			}
			sub = strings.TrimPrefix(path+"."+m.Content[i-1].Value, ".")
		}
		if c.Line == line && c.Column == col {
			return sub
		}
		if k := keyAt(c, sub, line, col); k != "" {
			return k
		}
	}
	return ""
}
