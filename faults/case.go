package faults

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Case is a test case that pins one finding down: the outcome's fixture,
// and what the script did with it (the observed behaviour, for the author
// to confirm or correct). restls test --faults --update appends one per
// escaped or crashed outcome; the editor's quick fix adds the same.
type Case struct {
	Name string `json:"name" yaml:"name"`
	// Fixtures is the outcome's fixture (times: 1, or 2 for the 401 and
	// its retry), before the file's own fixtures.
	Fixtures []json.RawMessage `json:"fixtures" yaml:"-"`
	// Result is what the script returned, Error what left it: one of the
	// two.
	Result json.RawMessage `json:"result,omitempty" yaml:"-"`
	Error  *CaseError      `json:"error,omitempty" yaml:"error,omitempty"`
}

// CaseError is a test file's error: expectation: the code of a
// RestClientError, the status of the contract's exception, else the
// error's name.
type CaseError struct {
	Code   string `json:"code,omitempty" yaml:"code,omitempty"`
	Status int    `json:"status,omitempty" yaml:"status,omitempty"`
	Name   string `json:"name,omitempty" yaml:"name,omitempty"`
}

// CaseName is the name of the case of an outcome at a site:
// "faults: GET crm customers/42 answers connect-timeout".
func CaseName(s Site, outcome string) string {
	return fmt.Sprintf("faults: %s %s %s answers %s", s.Method, s.ServiceID, strings.Join(s.PathParams, "/"), outcome)
}

// CaseOf is the case of finding f of rep.
func CaseOf(rep *Report, f Finding) Case {
	c := Case{Name: CaseName(rep.Sites[f.Site], f.Outcome), Fixtures: []json.RawMessage{f.Fixture}}
	if e := f.Error; e != nil {
		ce := &CaseError{Code: e.Code, Name: e.Name}
		if e.Status != nil {
			ce.Status = e.Status.Code
		}
		if ce.Code != "" || ce.Status != 0 {
			ce.Name = ""
		}
		c.Error = ce
		return c
	}
	c.Result = f.Result
	if len(c.Result) == 0 {
		c.Result = json.RawMessage("null")
	}
	return c
}
