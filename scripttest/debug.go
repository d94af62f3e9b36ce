package scripttest

import (
	"path/filepath"

	"github.com/restls/restls/engine"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/restclient"
)

// Case finds the case named name in f; "" is its first case. Nil when
// there is none.
func (f *File) Case(name string) *Case {
	for _, c := range f.Cases {
		if name == "" || c.Name == name {
			return c
		}
	}
	return nil
}

// Request is the run of c as restls test runs it: its script, its input,
// the case's fixtures then the file's (a call they do not answer fails
// with no-fixture, or goes to its service when live), the file's kind
// when it names one. restls dap debugs a case with it.
func (c *Case) Request(live bool) engine.Request {
	f := c.file
	mock := &restclient.Mock{File: f.mockFile, Fixtures: append(append([]*restclient.Fixture(nil), c.fixtures...), f.fixtures...),
		Advice: " to the case's or the file's fixtures, or run restls test with --live to call the services"}
	if len(c.fixtures) > 0 || mock.File == "" {
		mock.File = f.Path
	}
	fx := engine.Fixtures{Parsed: mock, Live: live}
	if live && len(mock.Fixtures) == 0 {
		fx.Parsed = nil // every call goes to its service: a live run
	}
	req := engine.Request{Name: f.Script, Text: f.Source, Input: c.Input, Fixtures: fx}
	if abs, err := filepath.Abs(f.Script); err == nil {
		req.Path = abs // the kind map matches absolute paths, as check and the editor do
	}
	req.Kind = f.Kind // the test file's kind, "" for the engine's kind rule
	return req
}

// Failures are what c's expectations say of res, as restls test says
// them; none when it passes.
func (c *Case) Failures(res *scriptrt.Result) []string {
	failures, _, _ := compare(c, res)
	return failures
}
