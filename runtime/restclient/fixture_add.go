package restclient

import (
	"bytes"
	"encoding/json"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/restls/restls/input"
)

// NewFixture is a fixture to add to a fixtures file (AddFixtures): a
// fixture generated from an API description.
type NewFixture struct {
	ServiceID, Method string
	// Path is the fixture's path pattern (PathPattern for literal
	// segments, "*" for any).
	Path   string
	Status int
	// Body is the JSON body; nil for none.
	Body json.RawMessage
	// Comment is written above the fixture in a YAML file (what the
	// body leaves out); a JSON file has no place for it.
	Comment string
}

// AddFixtures returns a fixtures file's text (old; empty when the file
// does not exist yet) with fixtures added, as --record adds the answers
// of calls no fixture answered: the fixtures already there stay where
// they are, the new ones follow; a YAML file keeps its comments, a JSON
// file its wrapper object. asJSON writes JSON (a .json file).
func AddFixtures(old []byte, asJSON bool, fixtures []NewFixture) ([]byte, error) {
	rec := make([]*recordedFixture, 0, len(fixtures))
	for _, f := range fixtures {
		r := &recordedFixture{ServiceID: f.ServiceID, Method: f.Method, Path: f.Path, Status: f.Status, Body: f.Body}
		r.key = callKey(r.ServiceID, r.Method, r.Path, nil)
		r.comment = f.Comment
		rec = append(rec, r)
	}
	if asJSON {
		return mergeJSON(old, rec, true)
	}
	return mergeYAML(old, rec, true, generatedHeadComment)
}

// AppendFixtures is AddFixtures for a YAML file without reading it
// whole: the text to insert at the end of old so that the fixtures
// follow the file's last one, indented as its items are. ok is false
// when old is not a file it can append to by looking at its lines: not
// a block list that ends the file (a top-level list, or a fixtures: key
// at column 0 with nothing after its items), or empty; AddFixtures,
// which parses and writes the whole file, is the way then. Before issue
// 33 "Add a fixture" beside a 15.5 MB file parsed and rewrote it (24 s,
// 1.5 GiB) to send it whole as the edit.
func AppendFixtures(old []byte, fixtures []NewFixture) (text string, ok bool) {
	indent, ok := appendIndent(old)
	if !ok || len(fixtures) == 0 {
		return "", false
	}
	list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, f := range fixtures {
		r := &recordedFixture{ServiceID: f.ServiceID, Method: f.Method, Path: f.Path, Status: f.Status, Body: f.Body}
		n, err := r.yamlNode()
		if err != nil {
			return "", false
		}
		n.HeadComment = f.Comment
		list.Content = append(list.Content, n)
	}
	var b bytes.Buffer
	d, err := yaml.NewDumper(&b, yaml.WithIndent(2))
	if err != nil {
		return "", false
	}
	if d.Dump(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{list}}) != nil || d.Close() != nil {
		return "", false
	}
	var out strings.Builder
	if old[len(old)-1] != '\n' {
		out.WriteByte('\n')
	}
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if line != "" && line != "\n" {
			out.WriteString(indent)
		}
		out.WriteString(line)
	}
	return out.String(), true
}

// appendIndent reads old's lines for AppendFixtures: the indentation of
// its list's items, and whether new items may go at its end.
func appendIndent(old []byte) (indent string, ok bool) {
	first, wrapped := true, false
	for len(old) > 0 {
		var line []byte
		if i := bytes.IndexByte(old, '\n'); i >= 0 {
			line, old = old[:i], old[i+1:]
		} else {
			line, old = old, nil
		}
		line = bytes.TrimRight(line, " \r")
		trimmed := bytes.TrimLeft(line, " ")
		if len(trimmed) == 0 || trimmed[0] == '#' {
			continue
		}
		item := trimmed[0] == '-' && (len(trimmed) == 1 || trimmed[1] == ' ')
		col0 := len(trimmed) == len(line)
		switch {
		case first:
			first = false
			switch {
			case item && col0:
				return "", appendTail(old, "")
			case string(line) == "fixtures:" || bytes.HasPrefix(line, []byte("fixtures: #")):
				wrapped = true
			default:
				return "", false // a flow list, another key first, a directive
			}
		case wrapped:
			if !item {
				return "", false
			}
			indent = string(line[:len(line)-len(trimmed)])
			return indent, appendTail(old, indent)
		}
	}
	return "", false
}

// appendTail reports whether the rest of a file whose items are indented
// by indent holds only them: no line at a lesser indentation that is not
// an item of the list or a comment.
func appendTail(rest []byte, indent string) bool {
	for len(rest) > 0 {
		var line []byte
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			line, rest = rest, nil
		}
		line = bytes.TrimRight(line, " \r")
		trimmed := bytes.TrimLeft(line, " ")
		if len(trimmed) == 0 || trimmed[0] == '#' {
			continue
		}
		depth := len(line) - len(trimmed)
		if depth > len(indent) {
			continue
		}
		item := trimmed[0] == '-' && (len(trimmed) == 1 || trimmed[1] == ' ')
		if depth < len(indent) || !item {
			return false
		}
	}
	return true
}

// Answers reports whether a fixture of m answers a call of serviceID with
// method and pathParams params, and no query parameters.
func (m *Mock) Answers(serviceID, method string, params []string) bool {
	return m.answers(serviceID, method, params, nil)
}

const generatedHeadComment = "Fixtures generated from the services' API descriptions (restls fixtures generate):\nreplay with restls run --mock. The format is described in docs/runtime.md."

// WriteFixtures writes a fixtures file's new text in one step: a reader
// sees the old file or the new one, never a part.
func WriteFixtures(file string, data []byte) error {
	if err := input.CheckWriteTarget(file); err != nil {
		return err
	}
	return writeFileAtomic(file, data)
}
