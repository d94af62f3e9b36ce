package scripttest

import (
	"context"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/faults"
	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime/restclient"
)

// Error paths in tests (issue 36): a test file's or case's faults key, or
// restls test --faults, explores each case's error paths with the fault
// explorer (package faults), from the case's own run; the verdicts that
// fail (faults.fail, else restls.yaml's, else crashed and misread) or
// break faults.expect fail the case. --update appends a case per escaped
// or crashed outcome, with its fixture and what the script did.

// FaultsSpec is a test file's or case's faults key.
type FaultsSpec struct {
	// On: explore (faults: true, or a mapping); false: never, not even
	// with restls test --faults.
	On bool
	// Outcomes to try; nil: every outcome of each call site.
	Outcomes []string
	// Fail are the verdicts that fail the case; nil: the options'.
	Fail []faults.Verdict
	// ExpectAll, when set, is the verdict every outcome must have;
	// Expect the verdict of each outcome it names.
	ExpectAll faults.Verdict
	Expect    map[string]faults.Verdict
}

type rawFaultsSpec struct {
	Outcomes []string  `yaml:"outcomes"`
	Fail     []string  `yaml:"fail"`
	Expect   yaml.Node `yaml:"expect"`
}

// parseFaults reads a faults key; nil when absent.
func parseFaults(path string, n *yaml.Node) (*FaultsSpec, error) {
	bad := func(line int, format string, a ...any) error {
		return &Error{File: path, Line: line, Msg: "faults: " + fmt.Sprintf(format, a...) + " (docs/ci.md, \"Error paths in tests\")"}
	}
	switch {
	case n.Kind == 0:
		return nil, nil
	case n.Kind == yaml.ScalarNode && n.Tag == "!!bool":
		return &FaultsSpec{On: n.Value == "true"}, nil
	case n.Kind != yaml.MappingNode:
		return nil, bad(n.Line, "true, false, or a mapping with outcomes, fail and expect")
	}
	var raw rawFaultsSpec
	if err := input.DecodeYAMLNode(n, &raw); err != nil {
		return nil, yamlError(path, err)
	}
	s := &FaultsSpec{On: true, Outcomes: raw.Outcomes}
	if err := (faults.Options{Outcomes: raw.Outcomes}).Check(); err != nil {
		return nil, bad(lineOf(n, "outcomes"), "%v", err)
	}
	if raw.Fail != nil {
		v, err := faults.ParseVerdicts(raw.Fail)
		if err != nil {
			return nil, bad(lineOf(n, "fail"), "fail: %v", err)
		}
		s.Fail = v
	}
	verdict := func(n *yaml.Node) (faults.Verdict, error) {
		v := faults.Verdict(n.Value)
		for _, known := range faults.Verdicts {
			if n.Kind == yaml.ScalarNode && v == known {
				return v, nil
			}
		}
		return "", bad(n.Line, "expect: %q is no verdict: use handled, escaped, crashed, misread or unanswered", n.Value)
	}
	switch e := &raw.Expect; e.Kind {
	case 0:
	case yaml.ScalarNode:
		v, err := verdict(e)
		if err != nil {
			return nil, err
		}
		s.ExpectAll = v
	case yaml.MappingNode:
		s.Expect = map[string]faults.Verdict{}
		for i := 0; i+1 < len(e.Content); i += 2 {
			k := e.Content[i].Value
			if err := (faults.Options{Outcomes: []string{k}}).Check(); err != nil {
				return nil, bad(e.Content[i].Line, "expect: %v", err)
			}
			v, err := verdict(e.Content[i+1])
			if err != nil {
				return nil, err
			}
			s.Expect[k] = v
		}
	default:
		return nil, bad(e.Line, "expect: a verdict, or a mapping of outcomes to verdicts")
	}
	return s, nil
}

// faultsSpec is the faults of case c as it runs under opts: its own, else
// its file's, else --faults' (every outcome); nil when not explored.
func faultsSpec(c *Case, opts Options) *FaultsSpec {
	s := c.faults
	if s == nil {
		s = c.file.faults
	}
	switch {
	case s != nil && !s.On:
		return nil
	case s == nil && !opts.Faults:
		return nil
	case s == nil:
		s = &FaultsSpec{On: true}
	}
	return s
}

// explore explores the error paths of c's run (res succeeded), through
// the engine that ran it, and returns the report and the failures it
// adds to the case's.
func (r *runner) explore(ctx context.Context, c *Case, spec *FaultsSpec, req engine.Request, mock *restclient.Mock) (*faults.Report, []string, error) {
	fail := spec.Fail
	if fail == nil {
		fail = r.opts.FaultsFail
	}
	req.Observer, req.Statements, req.Keep = nil, false, nil
	rep, err := faults.Explore(ctx, r.run, r.snap, req, mock, faults.Options{Outcomes: spec.Outcomes, Fail: fail})
	if err != nil {
		return nil, nil, err
	}
	var fails []string
	script := c.file.Script
	for _, f := range rep.Findings {
		s := rep.Sites[f.Site]
		want, named := spec.Expect[f.Outcome]
		if spec.ExpectAll != "" {
			want, named = spec.ExpectAll, true
		}
		where := fmt.Sprintf("faults: %s:%d %s %s path %q answered %s", script, s.Line, s.Method, s.ServiceID, strings.Join(s.PathParams, "/"), f.Outcome)
		switch {
		case named && f.Verdict != want:
			fails = append(fails, fmt.Sprintf("%s: %s, expected %s: %s", where, f.Verdict, want, f.Detail()))
		case !named && rep.Fails(f):
			fails = append(fails, fmt.Sprintf("%s: %s: %s", where, f.Verdict, f.Detail()))
		}
	}
	return rep, fails, nil
}

// appendFaultCases adds to f's cases one per escaped or crashed finding
// of the explored outcomes, unless a case of that name is there; it
// returns the names added. The new cases say faults: false: each pins
// one outcome down.
func appendFaultCases(f *File, outs []*Outcome) ([]string, error) {
	root := f.doc.Content[0]
	seq := valueOf(root, "cases")
	names := map[string]bool{}
	for _, c := range f.Cases {
		names[c.Name] = true
	}
	var added []string
	for _, o := range outs {
		rep := o.Faults
		if rep == nil {
			continue
		}
		for _, fd := range rep.Findings {
			if fd.Verdict != faults.Escaped && fd.Verdict != faults.Crashed {
				continue
			}
			fc := faults.CaseOf(rep, fd)
			if names[fc.Name] {
				continue
			}
			if seq == nil {
				return nil, fmt.Errorf("the file has no cases: list to add the cases of its escaped and crashed outcomes to; put its expectations under cases: (docs/ci.md)")
			}
			names[fc.Name] = true
			item := &yaml.Node{Kind: yaml.MappingNode}
			setKey(item, "name", nodeOf(fc.Name))
			setKey(item, "faults", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "false"})
			fixtures := &yaml.Node{Kind: yaml.SequenceNode}
			for _, fx := range fc.Fixtures {
				n := jsonNode(fx)
				n.Style = yaml.FlowStyle
				fixtures.Content = append(fixtures.Content, n)
			}
			setKey(item, "fixtures", fixtures)
			if fc.Error != nil {
				setKey(item, "error", nodeOf(*fc.Error))
			} else {
				setKey(item, "result", jsonNode(fc.Result))
			}
			seq.Content = append(seq.Content, item)
			added = append(added, fc.Name)
		}
	}
	return added, nil
}
