package lsp

import (
	"os"

	"go.lsp.dev/protocol"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// CommandServiceTree answers what an editor's services view shows: every
// kind's services with their address, description, kind of authorization
// and definition, and the configuration files with their problems. It
// never carries a credential.
const CommandServiceTree = "restls.serviceTree"

// ServiceTree is the answer of restls.serviceTree.
type ServiceTree struct {
	Kinds []TreeKind `json:"kinds"`
	// Files are the configuration files read, in reading order, each with
	// its problems; Problems without a file (no configuration found, a
	// remote registry that did not answer) are in Other.
	Files []TreeFile    `json:"files"`
	Other []TreeProblem `json:"other"`
	// Sources are the configuration sources in use, as restls/status has them.
	Sources config.Sources `json:"sources"`
}

// TreeKind is one script kind's registry.
type TreeKind struct {
	Kind     config.Kind   `json:"kind"`
	Hints    bool          `json:"hints"`
	Message  string        `json:"message"`
	Services []TreeService `json:"services"`
}

// TreeService is one usable service. Auth is "none", "basic" or "oAuth";
// OAuthID names the OAuth definition of an oAuth service.
type TreeService struct {
	ServiceID   string        `json:"serviceId"`
	URL         string        `json:"url"`
	Description string        `json:"description,omitempty"`
	Auth        string        `json:"auth"`
	OAuthID     string        `json:"oAuthId,omitempty"`
	Defined     *TreeLocation `json:"defined,omitempty"`
}

// TreeLocation is where something is written: the file as the client is
// shown it and, when the client sees real paths, its URI and LSP range
// (UTF-16 columns, like every position this server sends).
type TreeLocation struct {
	File  string          `json:"file"`
	URI   string          `json:"uri,omitempty"`
	Range *protocol.Range `json:"range,omitempty"`
}

// TreeFile is one configuration file and its problems.
type TreeFile struct {
	File     string        `json:"file"`
	URI      string        `json:"uri,omitempty"`
	Problems []TreeProblem `json:"problems"`
}

// TreeProblem is one configuration diagnostic.
type TreeProblem struct {
	Severity  string          `json:"severity"`
	Code      string          `json:"code"`
	Message   string          `json:"message"`
	ServiceID string          `json:"serviceId,omitempty"`
	Range     *protocol.Range `json:"range,omitempty"`
}

// authName is the kind of authorization as the view shows it.
func authName(a config.Auth) string {
	if a.Type == config.AuthNone {
		return "none"
	}
	return string(a.Type)
}

// serviceTree builds the answer from the session's current snapshot.
// Positions go through the configuration file's mapper (the open buffer,
// else the file on disk), as the diagnostics published on those files do.
func (s *session) serviceTree() ServiceTree {
	snap := s.snapshot()
	show := workspace.NewPathDisplay(s.opts.ShowPath, snap.Sources)
	realPaths := s.opts.ShowPath == nil
	mappers := map[string]*mapper{}
	locate := func(file string, line, column int) (string, *protocol.Range) {
		if !realPaths || file == "" {
			return "", nil
		}
		u := hostPaths.fileURI(cleanAbs(file))
		if line <= 0 {
			return string(u), nil
		}
		m, ok := mappers[file]
		if !ok {
			m = s.configMapper(u, file)
			mappers[file] = m
		}
		d := configDiagnostic(m, config.Diagnostic{Position: config.Position{File: file, Line: line, RuneCol: column}})
		r := d.Range
		return string(u), &r
	}
	tree := ServiceTree{Sources: show.Sources(snap.Sources), Files: []TreeFile{}, Other: []TreeProblem{}}
	for _, k := range config.Kinds {
		reg := snap.For(k)
		tk := TreeKind{Kind: k, Hints: reg.HintState().Offered, Message: show.Text(reg.HintState().Message()), Services: []TreeService{}}
		for _, id := range reg.IDs() {
			svc, _ := reg.Service(id)
			ts := TreeService{ServiceID: id, URL: svc.URL, Description: svc.Description, Auth: authName(svc.Auth), OAuthID: svc.Auth.OAuthID}
			if svc.Defined.File != "" {
				u, r := locate(svc.Defined.File, svc.Defined.Line, svc.Defined.RuneCol)
				ts.Defined = &TreeLocation{File: show.Path(svc.Defined.File), URI: u, Range: r}
			}
			tk.Services = append(tk.Services, ts)
		}
		tree.Kinds = append(tree.Kinds, tk)
	}
	index := map[string]int{}
	addFile := func(f string) int {
		if i, ok := index[f]; ok {
			return i
		}
		u, _ := locate(f, 0, 0)
		tree.Files = append(tree.Files, TreeFile{File: show.Path(f), URI: u, Problems: []TreeProblem{}})
		index[f] = len(tree.Files) - 1
		return index[f]
	}
	for _, f := range snap.Sources.Files() {
		if fi, err := os.Stat(f); err == nil && !fi.IsDir() {
			addFile(f)
		}
	}
	for _, d := range snap.Diagnostics() {
		shown := show.Diagnostic(d)
		p := TreeProblem{Severity: d.Severity.String(), Code: d.Code, Message: shown.Message, ServiceID: d.ServiceID}
		isFile := d.File != ""
		if isFile {
			if fi, err := os.Stat(d.File); err == nil && fi.IsDir() {
				isFile = false // "no configuration found in <dir>"
			}
		}
		if !isFile {
			tree.Other = append(tree.Other, p)
			continue
		}
		_, p.Range = locate(d.File, d.Line, d.RuneCol)
		i := addFile(d.File)
		tree.Files[i].Problems = append(tree.Files[i].Problems, p)
	}
	return tree
}
