package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/restls/restls/input"
	"github.com/restls/restls/openapi"
	"github.com/restls/restls/runtime/restclient"
)

// Fixtures from the description (issue 27): the language server's "Add a
// fixture for this call" and restls fixtures generate build a call's
// fixture here and add it to the fixture file beside its script.

// CallShape is what a fixture for a call needs of it, as written.
type CallShape struct {
	ServiceID, Method string
	// Segments are its pathParams: literal text, or Computed (any value).
	Segments []openapi.Seg
}

// CallShapeOf reads a call's pathParams as hints.CallSite.Path writes
// them: each after a "/", a literal as it is, any other expression as
// {name}.
func CallShapeOf(serviceID, method, path string) CallShape {
	c := CallShape{ServiceID: serviceID, Method: strings.ToUpper(method)}
	if path == "" {
		return c
	}
	for _, s := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			c.Segments = append(c.Segments, openapi.Seg{Computed: true})
		} else {
			c.Segments = append(c.Segments, openapi.Seg{Text: s})
		}
	}
	return c
}

// pattern is the fixture path that answers the call: literal segments
// escaped, "*" for the others.
func (c CallShape) pattern() string {
	parts := make([]string, len(c.Segments))
	for i, s := range c.Segments {
		if s.Computed {
			parts[i] = "*"
		} else {
			parts[i] = restclient.PathPattern([]string{s.Text})
		}
	}
	return strings.Join(parts, "/")
}

// anyValue stands for a computed segment when asking whether a fixture
// answers a call: only a wildcard matches it.
const anyValue = "\x00"

func (c CallShape) params() []string {
	out := make([]string, len(c.Segments))
	for i, s := range c.Segments {
		out[i] = s.Text
		if s.Computed {
			out[i] = anyValue
		}
	}
	return out
}

// ErrNoDescription and ErrNoOperation say why a call has no fixture from
// the description; the message names the serviceId and the call.
var (
	ErrNoDescription = errors.New("no API description")
	ErrNoOperation   = errors.New("no operation")
)

// FixtureFor builds the fixture of a call from its operation's answer in
// set, which must keep the answers' schemas (AnswerSet, AnswerAPIs):
// openapi.Index.AnswerExample. op is the operation ("GET /orders/{id}").
// A body the generator had to cut says so in f.Comment.
func FixtureFor(set *openapi.Set, c CallShape) (f restclient.NewFixture, op string, err error) {
	api, ok := set.API(c.ServiceID)
	if !ok || api.Index == nil || api.Index.Recorded {
		return f, "", fmt.Errorf("%w is attached to serviceId %s: name one with --openapi or the project file's openapi", ErrNoDescription, c.ServiceID)
	}
	o, _ := api.Match(c.Method, c.Segments)
	if o == nil {
		return f, "", fmt.Errorf("%w of serviceId %s's description matches %s %s", ErrNoOperation, c.ServiceID, c.Method, "/"+c.pattern())
	}
	ex := api.Index.AnswerExample(o)
	return restclient.NewFixture{ServiceID: c.ServiceID, Method: c.Method, Path: c.pattern(), Status: ex.Status, Body: ex.Body, Comment: ex.Cut}, o.Method + " " + o.Path, nil
}

// FixtureFile is the fixture file of script: the one beside it
// (MockFileBeside), else NAME.mock.yaml, to be created.
func FixtureFile(script string) string {
	if f := MockFileBeside(script); f != "" {
		return f
	}
	return MockCandidates(script)[0]
}

// FixtureText reads the fixture file of script (FixtureFile): its text,
// nil when it does not exist yet.
func FixtureText(script, file string) ([]byte, error) {
	data, err := input.ReadFileIn(FixtureRoot(script), file, input.Fixtures)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// Answered reports whether a fixture in data (a fixture file's text)
// answers the call; a file that does not parse answers nothing.
func Answered(data []byte, c CallShape) bool {
	if len(data) == 0 {
		return false
	}
	m, err := restclient.ParseMock("fixtures", data)
	return err == nil && m.Answers(c.ServiceID, c.Method, c.params())
}

// AddFixtures returns data (the text of file, nil when it does not
// exist) with fixtures added after those there (restclient.AddFixtures).
func AddFixtures(file string, data []byte, fixtures []restclient.NewFixture) ([]byte, error) {
	out, err := restclient.AddFixtures(data, strings.EqualFold(filepath.Ext(file), ".json"), fixtures)
	if err != nil {
		return nil, fmt.Errorf("cannot add to %s: %w; fix the file first", file, err)
	}
	return out, nil
}

// AddFixture is AddFixtures of one fixture.
func AddFixture(file string, data []byte, f restclient.NewFixture) ([]byte, error) {
	return AddFixtures(file, data, []restclient.NewFixture{f})
}

// AppendFixture is the text to insert at the end of data (the text of
// file, a YAML fixtures file) to add f after its fixtures, without
// parsing it (restclient.AppendFixtures); ok is false for a JSON file
// or a shape only AddFixture handles.
func AppendFixture(file string, data []byte, f restclient.NewFixture) (string, bool) {
	if strings.EqualFold(filepath.Ext(file), ".json") {
		return "", false
	}
	return restclient.AppendFixtures(data, []restclient.NewFixture{f})
}
