package workspace

import (
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/restls/restls/input"
	"github.com/restls/restls/openapi"
	"github.com/restls/restls/runtime/restclient"
)

// Codes of the findings on fixtures whose answers break their operation's
// description, documented in docs/diagnostics.md.
const (
	CodeFixtureStatus = "openapi-fixture-status"
	CodeFixtureBody   = "openapi-fixture-body"
)

// maxFixtureProblems bounds the findings of one file.
const maxFixtureProblems = 200

// FixtureProblem is a fixture whose answer breaks the description of the
// operation it answers: at the line and column of the status or of the
// body's value at fault, 1-based, the column in characters (as YAML
// counts them; config.Position's unit).
type FixtureProblem struct {
	Line, RuneCol int
	Code          string
	Message       string
}

// CheckFixtures checks the fixtures in data against set (AnswerSet): a
// fixtures file (*.mock.yaml, *.mock.json: a list, or an object with a
// fixtures list) or a test file's inline fixtures (its fixtures and each
// case's). A fixture is checked when it names its method and a path
// without "**" (a segment with a wildcard matches any parameter), and a
// description documents its serviceId's operation there. A document that
// does not parse has no findings here: its readers report it.
func CheckFixtures(data []byte, set *openapi.Set) []FixtureProblem {
	if set == nil || len(set.IDs()) == 0 {
		return nil
	}
	doc, err := input.YAMLNode(data)
	if err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil
	}
	var out []FixtureProblem
	for _, list := range fixtureLists(doc.Content[0]) {
		for i, n := range list.Content {
			if len(out) >= maxFixtureProblems {
				return out
			}
			out = append(out, checkFixture(n, i+1, set)...)
		}
	}
	return out
}

// fixtureLists are the lists of fixtures in a document: the document
// itself, its fixtures, and each of its cases' fixtures.
func fixtureLists(root *yaml.Node) []*yaml.Node {
	if root.Kind == yaml.SequenceNode {
		return []*yaml.Node{root}
	}
	if root.Kind != yaml.MappingNode {
		return nil
	}
	var out []*yaml.Node
	if l := mapValue(root, "fixtures"); l != nil && l.Kind == yaml.SequenceNode {
		out = append(out, l)
	}
	if cases := mapValue(root, "cases"); cases != nil && cases.Kind == yaml.SequenceNode {
		for _, c := range cases.Content {
			if l := mapValue(c, "fixtures"); l != nil && l.Kind == yaml.SequenceNode {
				out = append(out, l)
			}
		}
	}
	return out
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// checkFixture checks fixture number nth, node n.
func checkFixture(n *yaml.Node, nth int, set *openapi.Set) []FixtureProblem {
	f, ok := decodeFixture(n)
	if !ok || f.Method == "" || f.Path == nil {
		return nil
	}
	var segs []openapi.Seg
	for _, s := range input.SplitPathGlob(*f.Path) {
		if s == "**" {
			return nil
		}
		segs = append(segs, globSeg(s))
	}
	status := f.Status
	if status == 0 {
		status = 200
	}
	body, isJSON := fixtureBody(f)
	_, found := CheckAnswer(set, f.ServiceID, f.Method, segs, status, body, isJSON)
	if len(found) == 0 {
		return nil
	}
	out := make([]FixtureProblem, 0, len(found))
	for _, fd := range found {
		if fd.Rule == openapi.RuleNotChecked {
			// Not a problem of the fixture: the run that answers from it
			// says the answer was not checked, and why.
			continue
		}
		p := FixtureProblem{Line: n.Line, RuneCol: n.Column, Code: CodeFixtureBody,
			Message: "fixture " + strconv.Itoa(nth) + " (serviceId " + f.ServiceID + "): " + fd.Message}
		at := n
		if fd.Rule == "status" {
			p.Code = CodeFixtureStatus
			if v := mapValue(n, "status"); v != nil {
				at = v
			}
			p.Message += "; answer with a documented status, or document it in the description"
		} else if v := mapValue(n, "body"); v != nil {
			at = pointerNode(v, fd.Path)
		}
		p.Line, p.RuneCol = at.Line, at.Column
		out = append(out, p)
	}
	return out
}

// decodeFixture reads a fixture as the fixture format does (restclient's
// ParseMock): a fixture that does not parse is skipped.
func decodeFixture(n *yaml.Node) (*restclient.Fixture, bool) {
	if n.Kind != yaml.MappingNode {
		return nil, false
	}
	budget := maxFixtureNodes
	n = expandAliases(n, 0, &budget)
	if n == nil {
		return nil, false
	}
	doc := &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{n}}
	data, err := yaml.Marshal(doc)
	if err != nil {
		return nil, false
	}
	m, err := restclient.ParseMock("fixture", data)
	if err != nil || len(m.Fixtures) != 1 {
		return nil, false
	}
	return m.Fixtures[0], true
}

// globSeg is a path pattern's segment as a call's: literal text, or any
// value when it has a wildcard.
func globSeg(s string) openapi.Seg {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
			}
		case '*', '?', '[':
			return openapi.Seg{Computed: true}
		}
		b.WriteByte(s[i])
	}
	return openapi.Seg{Text: b.String()}
}

// fixtureBody is a fixture's answer as a JSON value, when it is JSON.
func fixtureBody(f *restclient.Fixture) (any, bool) {
	for k, v := range f.Headers {
		if strings.EqualFold(k, "content-type") && !strings.Contains(strings.ToLower(v), "json") {
			return nil, false
		}
	}
	switch {
	case f.Body != nil:
		return decodeJSONNumber(f.Body.JSON)
	case f.BodyText != nil:
		for k, v := range f.Headers {
			if strings.EqualFold(k, "content-type") && strings.Contains(strings.ToLower(v), "json") {
				return decodeJSONNumber([]byte(*f.BodyText))
			}
		}
	}
	return nil, false
}

// pointerNode is the node of body at the JSON pointer ptr, or the
// deepest one on its way.
func pointerNode(body *yaml.Node, ptr string) *yaml.Node {
	n := body
	if ptr == "" {
		return n
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			next = mapValue(n, tok)
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
	return n
}

// maxFixtureNodes bounds the nodes of one fixture once its aliases are
// expanded (input's decode budget bounds the document's).
const maxFixtureNodes = 1 << 20

// expandAliases is n with each alias replaced by a copy of its anchor's
// node, so the fixture reads alone; nil past the budget or depth 256.
func expandAliases(n *yaml.Node, depth int, budget *int) *yaml.Node {
	*budget--
	if *budget < 0 || depth > 256 {
		return nil
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return nil
		}
		return expandAliases(n.Alias, depth+1, budget)
	}
	if len(n.Content) == 0 && n.Anchor == "" {
		return n
	}
	c := *n
	c.Anchor = ""
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		if c.Content[i] = expandAliases(k, depth+1, budget); c.Content[i] == nil {
			return nil
		}
	}
	return &c
}
