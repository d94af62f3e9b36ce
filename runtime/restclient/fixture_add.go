package restclient

import (
	"encoding/json"

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
