package restclient

import (
	"encoding/json"

	"github.com/restls/restls/input"
)

// A Mock travels to a dry run's child (runtime/isolate) as JSON, its
// fixtures as they were parsed: each with the index and line its
// messages name (no-fixture's closest fixture, X-Restls-Mock), so a run
// of restls test's case and file fixtures in a child says what the same
// run in process says. What a fixture derives from its keys (the body's
// bytes, the path's pattern, the delay) is derived again on reading.

// mockWire is a Mock's JSON.
type mockWire struct {
	File     string        `json:"file"`
	Advice   string        `json:"advice,omitempty"`
	Script   string        `json:"script,omitempty"`
	Fixtures []fixtureWire `json:"fixtures"`
}

// fixtureWire is a parsed fixture's JSON: its keys, index and line.
type fixtureWire struct {
	Fixture
	Index int `json:"index"`
	Line  int `json:"line,omitempty"`
}

// MarshalJSON writes the fixtures as they were parsed, with their file,
// index and line, the advice and the script's name; not the counts of a
// run (a Mock read back answers a run of its own). Write it with
// input.TextJSON, as the run engine does: json.Marshal around it would
// rewrite the bodies' < > & as \u003c \u003e \u0026, and a body read
// back would be sent with those bytes.
func (m *Mock) MarshalJSON() ([]byte, error) {
	w := mockWire{File: m.File, Advice: m.Advice, Script: m.Script, Fixtures: make([]fixtureWire, len(m.Fixtures))}
	for i, f := range m.Fixtures {
		w.Fixtures[i] = fixtureWire{Fixture: *f, Index: f.index, Line: f.line}
	}
	return input.TextJSON(w) // bodies as they are sent, not HTML-escaped
}

// UnmarshalJSON reads what MarshalJSON wrote, each fixture checked and
// prepared again as ParseMock prepares it.
func (m *Mock) UnmarshalJSON(data []byte) error {
	var w mockWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	out := Mock{File: w.File, Advice: w.Advice, Script: w.Script, Fixtures: make([]*Fixture, len(w.Fixtures))}
	for i := range w.Fixtures {
		f := w.Fixtures[i].Fixture
		if f.Fault != "" && f.Fault != CodeNotJSON {
			f.Status = 0 // prepare gave it 200, which a fault that gets no answer may not name
		}
		if err := f.prepare(); err != nil {
			return &MockError{File: w.File, Line: w.Fixtures[i].Line, Fixture: w.Fixtures[i].Index, Msg: err.Error()}
		}
		f.index, f.line = w.Fixtures[i].Index, w.Fixtures[i].Line
		out.Fixtures[i] = &f
	}
	m.File, m.Advice, m.Script, m.Fixtures = out.File, out.Advice, out.Script, out.Fixtures
	return nil
}
