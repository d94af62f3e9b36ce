package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/restls/restls/config"
	"github.com/restls/restls/openapi"
	"github.com/restls/restls/workspace"
)

// The "openapi" setting (which API descriptions the session reads) and
// the descriptions' status; their diagnostics are in
// openapi_diagnostics.go.

// parseOpenAPISetting reads the "openapi" setting: an object mapping
// serviceIds to descriptions, or a list of descriptions matched by their
// servers' urls.
func parseOpenAPISetting(raw json.RawMessage) ([]workspace.APISource, error) {
	raw = bytes.TrimSpace(raw)
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		out := make([]workspace.APISource, 0, len(list))
		for _, l := range list {
			if l != "" {
				out = append(out, workspace.APISource{Location: l})
			}
		}
		return out, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf(`must map serviceIds to description files or URLs ({"crm": "openapi/crm.yaml"}) or list descriptions (["https://crm.example.com/openapi.json"])`)
	}
	var out []workspace.APISource
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return out, err
		}
		var loc string
		if err := dec.Decode(&loc); err != nil {
			return out, fmt.Errorf("%v: the value must be a file path or URL", kt)
		}
		id, _ := kt.(string)
		if id != "" && loc != "" {
			out = append(out, workspace.APISource{ServiceID: id, Location: loc})
		}
	}
	return out, nil
}

// resolveOpenAPI makes relative file paths absolute against root.
func resolveOpenAPI(src []workspace.APISource, root string) []workspace.APISource {
	out := make([]workspace.APISource, len(src))
	for i, s := range src {
		if !openapi.IsURL(s.Location) {
			s.Location = hostPaths.resolve(root, s.Location) // as every path setting
		}
		out[i] = s
	}
	return out
}

// openAPISources are the descriptions the session uses: its settings'
// when they name any, else the server's.
func (s *session) openAPISources() []workspace.APISource {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.openAPISourcesLocked()
}

func (s *session) openAPISourcesLocked() []workspace.APISource {
	if s.settings.OpenAPI != nil && s.opts.MayAttachAPIs {
		return resolveOpenAPI(s.settings.OpenAPI, s.root)
	}
	return s.srv.ws.APIs()
}

// APIStatus is one description in restls/status.
type APIStatus struct {
	ServiceID string `json:"serviceId,omitempty"`
	Source    string `json:"source"`
	// State is "loading", "loaded" or "failed"; a failed URL that keeps
	// the copy loaded before is "loaded" with an Error.
	State string `json:"state"`
	// Recorded marks a mock fixture file beside a script: recorded
	// answers, used for r.body where a service has no description.
	Recorded   bool     `json:"recorded,omitempty"`
	Operations int      `json:"operations,omitempty"`
	Services   []string `json:"services,omitempty"`
	Error      string   `json:"error,omitempty"`
}

// openAPIStatus describes the session's descriptions for restls/status.
func (s *session) openAPIStatus(reg *config.Registry, show workspace.PathDisplay) []APIStatus {
	src := s.openAPISources()
	seen := map[string]bool{}
	for _, u := range s.openURIs() {
		if d := s.document(u); d != nil {
			for _, r := range s.recorded.Beside(d.path) {
				if !seen[r.Location] {
					seen[r.Location] = true
					src = append(slices.Clip(src), r)
				}
			}
		}
	}
	var out []APIStatus
	s.mu.Lock()
	refused := s.settings.OpenAPI != nil && !s.opts.MayAttachAPIs
	s.mu.Unlock()
	if refused {
		out = append(out, APIStatus{State: "refused", Error: "the openapi setting is not honoured for this session: " +
			"any client of it could make the server read other files or fetch any address; start the server with --openapi instead"})
	}
	if len(src) == 0 {
		return out
	}
	docs, _ := s.srv.ws.Descriptions().Docs(src)
	set := s.apiCache.Set(s.srv.ws.Descriptions(), src, reg)
	for i, d := range docs {
		st := APIStatus{ServiceID: d.ServiceID, Source: d.Location, State: "loading", Recorded: src[i].Recorded}
		if !openapi.IsURL(d.Location) {
			st.Source = show.Text(d.Location)
		} else {
			st.Source = openapi.Redact(d.Location)
		}
		if d.Err != nil {
			st.State, st.Error = "failed", show.Text(d.Err.Error())
		}
		if d.Index != nil {
			st.State, st.Operations = "loaded", len(d.Index.Ops)
			for _, id := range set.IDs() {
				if a, _ := set.API(id); a.Index == d.Index {
					st.Services = append(st.Services, id)
				}
			}
		}
		out = append(out, st)
	}
	return out
}
