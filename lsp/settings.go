package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	"github.com/restls/restls/workspace"
)

// settings are the editor's "restls" settings, from initializationOptions,
// workspace/configuration (section "restls") or didChangeConfiguration.
// Every field is optional; the command-line flags fill what is unset.
type settings struct {
	ConfigRoot     string
	Properties     []string
	ServiceXML     string
	HandlerXML     string
	PlatformConfig string
	// RegistryURL loads the hints map from another restls backend instead
	// of the files (package remote, wired by cmd/restls through Options.Load).
	RegistryURL string
	// ScriptKinds maps globs to kinds, in the order written; the first match
	// wins.
	ScriptKinds config.KindMap
	// OpenAPI attaches API descriptions to services; nil leaves the
	// server's (--openapi), an empty list attaches none.
	OpenAPI []workspace.APISource
	// Environment picks one of the project file's environments
	// (workspace.Session.Environment picks it) as the sources the other settings override;
	// "" keeps the server's.
	Environment string
	// InlayHints shows each serviceId's host, path and auth kind after
	// it (inlay_hints.go); nil is on.
	InlayHints *bool
	// Scripts decide which files are platform scripts: the "include"
	// globs, workspace.DefaultScriptGlobs when unset.
	Scripts workspace.ScriptFiles
	// Environments are the editor's own environments (VS Code's
	// restls.environments): each a complete set of sources in place of
	// the plain ones, picked by Environment like the project file's, and
	// winning over one of the project file's of the same name.
	Environments map[string]settings
}

type rawSettings struct {
	ConfigRoot     string          `json:"configRoot"`
	Properties     json.RawMessage `json:"properties"`
	ServiceXML     string          `json:"serviceXml"`
	HandlerXML     string          `json:"handlerXml"`
	PlatformConfig string          `json:"platformConfig"`
	RegistryURL    string          `json:"registryUrl"`
	ScriptKinds    json.RawMessage `json:"scriptKinds"`
	ExplicitKinds  bool            `json:"explicitKinds"`
	OpenAPI        json.RawMessage `json:"openapi"`
	Environment    string          `json:"environment"`
	InlayHints     *bool           `json:"inlayHints"`
	Include        json.RawMessage `json:"include"`
	Environments   json.RawMessage `json:"environments"`
}

// parseSettings reads settings from raw JSON: either the "restls" object
// itself or an object holding it under "restls" (VS Code sends the latter in
// didChangeConfiguration). null or an empty value gives zero settings. The
// problems it returns are worth a warning; the settings are still usable.
func parseSettings(raw []byte) (settings, []string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || isEmptyArray(raw) {
		return settings{}, nil
	}
	var wrapper map[string]json.RawMessage
	if err := json.Unmarshal(raw, &wrapper); err != nil {
		return settings{}, []string{"restls settings must be a JSON object: " + err.Error()}
	}
	if inner, ok := wrapper["restls"]; ok {
		return parseSettings(inner)
	}
	var r rawSettings
	var problems []string
	if err := json.Unmarshal(raw, &r); err != nil {
		return settings{}, []string{"restls settings: " + err.Error()}
	}
	s := settings{ConfigRoot: r.ConfigRoot, ServiceXML: r.ServiceXML, HandlerXML: r.HandlerXML, PlatformConfig: r.PlatformConfig, RegistryURL: r.RegistryURL,
		Environment: strings.TrimSpace(r.Environment), InlayHints: r.InlayHints}
	if len(r.Properties) > 0 && string(r.Properties) != "null" {
		var list []string
		var one string
		switch {
		case json.Unmarshal(r.Properties, &list) == nil:
			s.Properties = list
		case json.Unmarshal(r.Properties, &one) == nil && one != "":
			s.Properties = []string{one}
		default:
			problems = append(problems, "restls.properties must be a list of file paths")
		}
	}
	if len(r.Include) > 0 && string(r.Include) != "null" {
		var globs []string
		if err := json.Unmarshal(r.Include, &globs); err != nil {
			problems = append(problems, "restls.include must be a list of globs, e.g. [\"**/scripts/**/*.js\"]")
		}
		f, err := workspace.NewScriptFiles(globs)
		if err != nil {
			problems = append(problems, "restls.include: "+err.Error())
		}
		s.Scripts = f
	}
	if len(r.Environments) > 0 && string(r.Environments) != "null" && !isEmptyArray(r.Environments) {
		envs, bad := parseEnvironments(r.Environments)
		problems = append(problems, bad...)
		s.Environments = envs
	}
	if len(r.ScriptKinds) > 0 && string(r.ScriptKinds) != "null" {
		kinds, err := orderedKinds(r.ScriptKinds)
		if err != nil {
			problems = append(problems, "restls.scriptKinds: "+err.Error())
		}
		s.ScriptKinds = kinds
		if r.ExplicitKinds {
			// The user chose these kinds (the designer's selector): they
			// win over a script's directive, as a run's named kind does.
			s.ScriptKinds = kinds.Explicit()
		}
	}
	if len(r.OpenAPI) > 0 && string(r.OpenAPI) != "null" {
		list, err := parseOpenAPISetting(r.OpenAPI)
		if err != nil {
			problems = append(problems, "restls.openapi: "+err.Error())
		}
		s.OpenAPI = list
		if s.OpenAPI == nil {
			s.OpenAPI = []workspace.APISource{}
		}
	}
	return s, problems
}

// parseEnvironments reads the environments setting: a name to the five
// source settings of one environment. A name that is blank, or an entry
// that is not such an object, is left out and named in a problem.
func parseEnvironments(raw []byte) (map[string]settings, []string) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, []string{"restls.environments must be an object: a name to its configRoot, properties, serviceXml, handlerXml and platformConfig"}
	}
	out := map[string]settings{}
	var problems []string
	for name, e := range m {
		var r struct {
			ConfigRoot     string          `json:"configRoot"`
			Properties     json.RawMessage `json:"properties"`
			ServiceXML     string          `json:"serviceXml"`
			HandlerXML     string          `json:"handlerXml"`
			PlatformConfig string          `json:"platformConfig"`
		}
		name = strings.TrimSpace(name)
		if name == "" || json.Unmarshal(e, &r) != nil {
			problems = append(problems, fmt.Sprintf("restls.environments %q: must be an object of configRoot, properties, serviceXml, handlerXml and platformConfig; left out", name))
			continue
		}
		env := settings{ConfigRoot: r.ConfigRoot, ServiceXML: r.ServiceXML, HandlerXML: r.HandlerXML, PlatformConfig: r.PlatformConfig}
		if len(r.Properties) > 0 && string(r.Properties) != "null" && json.Unmarshal(r.Properties, &env.Properties) != nil {
			problems = append(problems, fmt.Sprintf("restls.environments %q: properties must be a list of file paths", name))
		}
		out[name] = env
	}
	slices.Sort(problems)
	return out, problems
}

// orderedKinds decodes {"glob": "kind", ...} keeping the order written, since
// the first matching glob wins.
func orderedKinds(raw []byte) (config.KindMap, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("must be an object mapping globs to script kinds, e.g. {\"**/tasks/**\": \"scriptTask\"}")
	}
	var out config.KindMap
	var bad []string
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return out, err
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return out, err
		}
		glob, _ := kt.(string)
		name, _ := v.(string)
		k, err := config.ParseKind(name)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%q: %v", glob, err))
			continue
		}
		// Matched against slash-separated paths (session.kindOf): a
		// Windows glob may be written with backslashes.
		g, err := input.FileGlob(hostPaths.slash(glob))
		if err != nil {
			bad = append(bad, fmt.Sprintf("%q: %v: %s", glob, err, input.GlobSyntax))
			continue
		}
		out = append(out, config.KindGlob{Glob: g, Kind: k})
	}
	if len(bad) > 0 {
		return out, fmt.Errorf("%s", strings.Join(bad, "; "))
	}
	return out, nil
}

// sources returns the configuration sources the settings name, with
// relative paths resolved against the workspace root.
func (s settings) sources(root string) config.Sources {
	abs := func(p string) string { return hostPaths.resolve(root, p) }
	out := config.Sources{
		ConfigRoot:     abs(s.ConfigRoot),
		ServiceXML:     abs(s.ServiceXML),
		HandlerXML:     abs(s.HandlerXML),
		PlatformConfig: abs(s.PlatformConfig),
		RegistryURL:    s.RegistryURL,
	}
	for _, p := range s.Properties {
		out.Properties = append(out.Properties, abs(p))
	}
	return out
}

// isEmptyArray reports whether raw is [] (spaces allowed): Neovim encodes
// an empty Lua table ({}) so, where an editor would send {} or null.
func isEmptyArray(raw []byte) bool {
	return len(raw) >= 2 && raw[0] == '[' && raw[len(raw)-1] == ']' && len(bytes.TrimSpace(raw[1:len(raw)-1])) == 0
}
