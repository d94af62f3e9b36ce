package workspace

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ruleFile is the one file that may choose an environment.
const ruleFile = "workspace/environment.go"

// TestEnvironmentRule: the environment is chosen in environment.go and
// nowhere else in the module. Every other file asks the rule
// (Environments.Pick, Session.Environment, Session.EnvironmentSnapshot):
// a read of the project file's environments or default, or a lookup of
// an environment by name in a map of them, anywhere else is a second
// rule in the making (there were five: cmd, two in lsp, web, VS Code).
//
// It holds the surfaces to the session for the rest of what the rule
// picks as well (issue 34): a surface (surfaceDirs) that loads the
// configuration itself (config.Load) reads around the environment the
// session's rule picked (restls curl, fixtures, services and test once
// did), and one that decides a script's kind itself (KindMap.KindOf,
// Decide, DecideNamed) is a second kind rule beside the snapshot's and
// the run engine's (the designer's run plan and restls test's files
// once were).
func TestEnvironmentRule(t *testing.T) {
	for _, v := range environmentChoices(t, "..") {
		t.Error(v)
	}
}

// surfaceDirs are the surfaces' packages, which ask the session (or the
// run engine) for the configuration and a script's kind.
var surfaceDirs = []string{"cmd/", "lsp/", "web/", "mcp/", "dap/", "scripttest/", "check/"}

// ownConfiguration are the surfaces' files that may load a configuration
// themselves, and why: neither is the session's project.
var ownConfiguration = map[string]string{
	"cmd/restls/services_diff.go": "compares two configurations as written (config roots or the file's environments), neither the session's",
	"cmd/restls/check_since.go":   "reads the configuration of a git revision",
}

// sharedDirs are the surfaces that share a session with editors, whose
// open documents they read in place of the disk (workspace/overlay.go,
// lsp/files.go); ownReads are their files that read the disk
// themselves, and why.
var sharedDirs = []string{"lsp/", "web/", "mcp/"}

var ownReads = map[string]string{
	"lsp/files.go":               "the language server's one reading: its documents, the overlay, else the disk",
	"lsp/fixture_diagnostics.go": "a fixture file's checks are kept by the file's size and time",
	"mcp/resources.go":           "the project file, as the server loaded it",
}

// kindHomes are where a script's kind is decided: the rule itself
// (config), the snapshot and the project index (workspace), and the run
// engine's one decision per request (engine.Kind).
var kindHomes = []string{"config/", "workspace/", "engine/"}

// TestEnvironmentRuleCatches runs the checker on planted files, so a
// broken checker cannot pass the module silently.
func TestEnvironmentRuleCatches(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		// The rule itself may read everything.
		ruleFile: "package workspace\nfunc (p *Project) pick(a string) string { if a == \"\" { return p.defaultEnvironment }; _ = p.environments[a]; return a }\n",
		// A second rule: the file's default read elsewhere.
		"workspace/other.go": "package workspace\nfunc def(p *Project) string { return p.defaultEnvironment }\n",
		// An exported default, as cmd once read it.
		"cmd/x/serve.go": "package main\nfunc env(p *P, flag string) string { if flag == \"\" { return p.DefaultEnvironment }; return flag }\n",
		// A map of environments looked up by name, as lsp once did.
		"lsp/watch.go": "package lsp\nfunc base(s *S) Sources { if e, ok := s.opts.Environments[s.name]; ok { return e }; return s.opts.Sources }\n",
		// Or searched.
		"lsp/load.go": "package lsp\nfunc any(s *S, src Sources) bool { for _, e := range s.srv.opts.Environments { if e == src { return true } }; return false }\n",
		// The map itself handed around by its field.
		"web/api.go": "package web\nfunc names(s *S) []string { return keys(s.opts.environments) }\n",
		// A surface loading the configuration itself, as restls curl
		// once did, and one of the two that may.
		"cmd/x/curl.go":             "package main\nfunc reg(cf *C) *R { return config.Load(cf.sources()).For(k) }\n",
		"cmd/restls/check_since.go": "package main\nfunc past(src S, r R) *S { return config.LoadWith(src, r.read) }\n",
		// A surface deciding a script's kind itself, as the designer's
		// run plan and restls test's files once did.
		"web/api_designer.go": "package web\nfunc plan(text string) Kind { return config.KindMap(nil).KindOf(designerScript, text) }\n",
		"lsp/info.go":         "package lsp\nfunc kind(set S, p, t string) D { return set.ScriptKinds.Decide(p, t) }\n",
		"mcp/run.go":          "package mcp\nfunc kind(m KindMap, k Kind, p, t string) D { return m.DecideNamed(k, p, t) }\n",
		// A surface beside editors reading the disk, as the MCP tools
		// once read a script an editor had open; a command may.
		"mcp/paths.go":  "package mcp\nfunc read(p string) ([]byte, error) { return input.ReadFileIn(root, p, input.Script) }\n",
		"cmd/x/read.go": "package main\nfunc read(p string) ([]byte, error) { return input.ReadFile(p, input.Script) }\n",
		"lsp/files.go":  "package lsp\nfunc read(p string) ([]byte, error) { return input.ReadFile(p, input.Script) }\n",
		// Where the kind is decided, and a gate's Decide that decides no kind.
		"engine/engine.go":  "package engine\nfunc Kind(s S, r R) D { return s.Kinds.DecideNamed(r.Kind, r.Path, r.Text) }\n",
		"workspace/snap.go": "package workspace\nfunc (s Snapshot) Kind(p, t string) D { return s.Kinds.Decide(p, t) }\n",
		"web/gate.go":       "package web\nfunc ok(g *G, r R) bool { return g.Decide(r) }\n",
		// Clean: role limits name environments without choosing one, and
		// tests may build whatever they check.
		"web/access.go":       "package web\nfunc ok(id *I, env string) bool { return slices.Contains(id.Environments, env) }\n",
		"lsp/watch_test.go":   "package lsp\nfunc f(o Options) { _ = o.Environments[\"x\"] }\n",
		"lsp/testdata/x.go":   "package x\nfunc f(p *P) string { return p.DefaultEnvironment }\n",
		"node_modules/m/m.go": "package m\nfunc f(p *P) string { return p.DefaultEnvironment }\n",
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := environmentChoices(t, root)
	want := []string{
		"cmd/x/curl.go:2: loads the configuration itself",
		"cmd/x/serve.go:2: reads DefaultEnvironment",
		"lsp/info.go:2: decides a script's kind itself (Decide)",
		"lsp/load.go:2: looks through Environments for an environment",
		"lsp/watch.go:2: looks an environment up by name in Environments",
		"mcp/paths.go:2: reads a file from disk itself (ReadFileIn)",
		"mcp/run.go:2: decides a script's kind itself (DecideNamed)",
		"web/api.go:2: reads environments",
		"web/api_designer.go:2: decides a script's kind itself (KindOf)",
		"workspace/other.go:2: reads defaultEnvironment",
	}
	for i := range got {
		got[i] = strings.SplitN(got[i], ": the environment is chosen", 2)[0]
		got[i] = strings.SplitN(got[i], ": the configuration", 2)[0]
		got[i] = strings.SplitN(got[i], ": the kind", 2)[0]
		got[i] = strings.SplitN(got[i], ": an editor", 2)[0]
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// environmentChoices are the places outside ruleFile, in the non-test Go
// files under root, that choose an environment themselves: a read of a
// field named environments, defaultEnvironment or DefaultEnvironment (the
// project file's), or an index into or a range over a field named
// Environments or environments (a lookup by name, a search). And, in the
// surfaces' files, a call of config.Load or config.LoadWith (but in
// ownConfiguration), and outside kindHomes a call of a kind map's KindOf,
// DecideNamed or Decide (a Decide whose receiver names no kind map is
// another decision). And in sharedDirs (but ownReads), a read of a file
// from disk (input.ReadFile, ReadFileIn, config.ReadText, os.ReadFile).
// Sorted.
func environmentChoices(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "node_modules" || name == "vendor" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == ruleFile {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		report := func(n ast.Node, what string) {
			out = append(out, fmt.Sprintf("%s:%d: %s: the environment is chosen in %s only (Environments.Pick, Session.Environment); ask it", rel, fset.Position(n.Pos()).Line, what, ruleFile))
		}
		surface := slices.ContainsFunc(surfaceDirs, func(d string) bool { return strings.HasPrefix(rel, d) })
		_, own := ownReads[rel]
		shared := !own && slices.ContainsFunc(sharedDirs, func(d string) bool { return strings.HasPrefix(rel, d) })
		kindHome := slices.ContainsFunc(kindHomes, func(d string) bool { return strings.HasPrefix(rel, d) })
		indexed := map[*ast.SelectorExpr]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok {
					break
				}
				if pkg, ok := sel.X.(*ast.Ident); ok && shared && (pkg.Name == "input" && (sel.Sel.Name == "ReadFile" || sel.Sel.Name == "ReadFileIn") ||
					pkg.Name == "config" && sel.Sel.Name == "ReadText" || pkg.Name == "os" && sel.Sel.Name == "ReadFile") {
					out = append(out, fmt.Sprintf("%s:%d: reads a file from disk itself (%s): an editor may hold it open; read it through the session (Session.ReadFile, ReadFileIn; lsp/files.go)", rel, fset.Position(n.Pos()).Line, sel.Sel.Name))
					break
				}
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "config" && (sel.Sel.Name == "Load" || sel.Sel.Name == "LoadWith") {
					if _, own := ownConfiguration[rel]; surface && !own {
						out = append(out, fmt.Sprintf("%s:%d: loads the configuration itself: the configuration is the session's, of the environment its rule picked (configFlags.session, Session.Snapshot, Session.SnapshotIn); ask it", rel, fset.Position(n.Pos()).Line))
					}
					break
				}
				switch name := sel.Sel.Name; {
				case kindHome:
				case name == "KindOf" || name == "DecideNamed" || name == "Decide" && strings.Contains(types.ExprString(sel.X), "Kind"):
					out = append(out, fmt.Sprintf("%s:%d: decides a script's kind itself (%s): the kind is decided by the snapshot (Snapshot.Kind) or, for a run, by the run engine (engine.Kind, Request.Kind); ask it", rel, fset.Position(n.Pos()).Line, name))
				}
			case *ast.RangeStmt:
				if sel, ok := n.X.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Environments" || sel.Sel.Name == "environments") {
					indexed[sel] = true
					report(n, "looks through "+sel.Sel.Name+" for an environment")
				}
			case *ast.IndexExpr:
				if sel, ok := n.X.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Environments" || sel.Sel.Name == "environments") {
					indexed[sel] = true
					report(n, "looks an environment up by name in "+sel.Sel.Name)
				}
			case *ast.SelectorExpr:
				switch n.Sel.Name {
				case "environments", "defaultEnvironment", "DefaultEnvironment":
					if !indexed[n] {
						report(n, "reads "+n.Sel.Name)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
