package faults

import (
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// Base parses the fixtures an exploration starts from, named as a
// surface names a run's (engine.Fixtures): Inline (the designer's Mocks
// tab), File, or Beside (the file beside req.Path); nil when none is
// named or found. A document that does not parse is an
// *engine.FixturesError naming it and its line, as a run's.
func Base(req engine.Request) (*restclient.Mock, error) {
	f := req.Fixtures
	show := func(p string) string {
		if req.Show != nil {
			return req.Show(p)
		}
		return p
	}
	file := f.File
	if f.Beside && file == "" && req.Path != "" {
		file = workspace.MockFileBeside(req.Path)
	}
	var m *restclient.Mock
	var err error
	switch {
	case f.Inline != nil:
		name := f.Name
		if name == "" {
			name = restclient.PastedMocks
		}
		m, err = restclient.ParseMock(name, f.Inline)
	case file != "":
		name := f.Name
		if name == "" {
			name = show(file)
		}
		m, err = restclient.LoadMockAs(file, name)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, &engine.FixturesError{Err: err}
	}
	m.Script = req.Name
	return m, nil
}
