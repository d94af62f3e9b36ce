package web

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/hints"
	"github.com/restls/restls/runtime/restclient"
)

// What the designer page asks before it runs: which services a live run
// will call (POST /v1/run/plan) and whether its Mocks pane holds fixtures
// the runtime accepts (POST /v1/mock/check). Both read the request and the
// registry only; nothing runs and nothing is sent anywhere.

// planBody is POST /v1/run/plan.
type planBody struct {
	Text        string `json:"text"`
	Kind        string `json:"kind"`
	Environment string `json:"environment"`
}

// planJSON is what a live run of the script will call, as far as its text
// says: the literal serviceIds of its api.rest.v1 calls.
type planJSON struct {
	Kind config.Kind `json:"kind"`
	// Environment is the project file's environment the run uses, "" when
	// the file has none.
	Environment string            `json:"environment,omitempty"`
	Services    []planServiceJSON `json:"services"`
	// Dynamic counts the calls whose serviceId is computed at run time,
	// which the plan cannot name.
	Dynamic int `json:"dynamic"`
}

type planServiceJSON struct {
	ServiceID string `json:"serviceId"`
	// Configured is false for a serviceId the registry does not know: the
	// call will fail without reaching the network.
	Configured bool   `json:"configured"`
	URL        string `json:"url,omitempty"`
	// Credentials is the kind of credential the call sends: "none",
	// "basic" or "oAuth" (a token fetched first); never the credential.
	Credentials string `json:"credentials"`
	Calls       int    `json:"calls"`
}

func (s *Server) handleRunPlan(w http.ResponseWriter, r *http.Request) {
	var body planBody
	if err := json.NewDecoder(io.LimitReader(r.Body, maxRunBody+1)).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, `the body must be JSON {"text": script, "kind"?: kind}: `+err.Error())
		return
	}
	var named config.Kind
	if body.Kind != "" {
		k, err := config.ParseKind(body.Kind)
		if err != nil {
			writeError(w, http.StatusBadRequest, "kind: "+err.Error())
			return
		}
		named = k
	}
	snap, err := s.runSnapshot(body.Environment)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	// The kind the run will have (handleRun's request, the engine's
	// decision), in the environment it will run in.
	kind := engine.Kind(snap, engine.Request{Name: designerScript, Text: body.Text, Kind: named}).Kind
	reg := snap.Config.For(kind)
	plan := planJSON{Kind: kind, Environment: snap.Environment, Services: []planServiceJSON{}}
	byID := map[string]int{}
	for _, c := range hints.CallSites(hints.NewDocument(body.Text)) {
		if c.Method == "" {
			continue
		}
		if c.Dynamic || c.ServiceID == "" {
			plan.Dynamic++
			continue
		}
		if i, ok := byID[c.ServiceID]; ok {
			plan.Services[i].Calls++
			continue
		}
		p := planServiceJSON{ServiceID: c.ServiceID, Credentials: "none", Calls: 1}
		if svc, ok := reg.Service(c.ServiceID); ok {
			p.Configured, p.URL = true, svc.URL
			if svc.Auth.Type != config.AuthNone {
				p.Credentials = string(svc.Auth.Type)
			}
		}
		byID[c.ServiceID] = len(plan.Services)
		plan.Services = append(plan.Services, p)
	}
	writeJSON(w, http.StatusOK, plan)
}

// mockCheckBody is POST /v1/mock/check.
type mockCheckBody struct {
	// Mock is the Mocks pane's text.
	Mock string `json:"mock"`
	Kind string `json:"kind"`
}

// mockDiagnosticJSON is one problem of a Mocks pane, at its 1-based line
// and column ("" code for the fixture format's own errors).
type mockDiagnosticJSON struct {
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Code     string `json:"code,omitempty"`
}

// handleMockCheck parses the fixtures as a run would (restclient.ParseMock,
// the format of GET /v1/schema/mock.json) and says where they break; a
// fixture for a serviceId the kind's registry does not configure is a
// warning (it can never answer a call).
func (s *Server) handleMockCheck(w http.ResponseWriter, r *http.Request) {
	var body mockCheckBody
	if err := json.NewDecoder(io.LimitReader(r.Body, maxRunBody+1)).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, `the body must be JSON {"mock": text, "kind"?: kind}: `+err.Error())
		return
	}
	kind := config.ScriptService
	if body.Kind != "" {
		k, err := config.ParseKind(body.Kind)
		if err != nil {
			writeError(w, http.StatusBadRequest, "kind: "+err.Error())
			return
		}
		kind = k
	}
	out := struct {
		Diagnostics []mockDiagnosticJSON `json:"diagnostics"`
	}{Diagnostics: []mockDiagnosticJSON{}}
	if strings.TrimSpace(body.Mock) == "" {
		writeJSON(w, http.StatusOK, out)
		return
	}
	m, err := restclient.ParseMock(mockName, []byte(body.Mock))
	if err != nil {
		d := mockDiagnosticJSON{Line: 1, Column: 1, Severity: "error", Message: err.Error()}
		var me *restclient.MockError
		if errors.As(err, &me) {
			d.Message = me.Msg
			if me.Line > 0 {
				d.Line, d.Column = me.Line, max(me.Column, 1)
			}
		}
		out.Diagnostics = append(out.Diagnostics, d)
		writeJSON(w, http.StatusOK, out)
		return
	}
	reg := s.opts.Snapshot().For(kind)
	if reg != nil && reg.Loaded {
		for _, f := range m.Fixtures {
			if _, ok := reg.Service(f.ServiceID); ok {
				continue
			}
			msg := "serviceId " + f.ServiceID + " is not configured for " + string(kind) + ": this fixture answers no call"
			if near := closest(reg.IDs(), f.ServiceID); near != "" {
				msg += " (did you mean " + near + "?)"
			}
			out.Diagnostics = append(out.Diagnostics, mockDiagnosticJSON{Line: f.Line(), Column: 1, Severity: "warning", Message: msg, Code: "unknown-service"})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// closest is the id of ids that differs from id only in case, or "".
func closest(ids []string, id string) string {
	i := slices.IndexFunc(ids, func(s string) bool { return strings.EqualFold(s, id) })
	if i < 0 {
		return ""
	}
	return ids[i]
}
