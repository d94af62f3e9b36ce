package workspace

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
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
func TestEnvironmentRule(t *testing.T) {
	for _, v := range environmentChoices(t, "..") {
		t.Error(v)
	}
}

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
		"cmd/x/serve.go:2: reads DefaultEnvironment",
		"lsp/load.go:2: looks through Environments for an environment",
		"lsp/watch.go:2: looks an environment up by name in Environments",
		"web/api.go:2: reads environments",
		"workspace/other.go:2: reads defaultEnvironment",
	}
	for i := range got {
		got[i] = strings.SplitN(got[i], ": the environment is chosen", 2)[0]
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// environmentChoices are the places outside ruleFile, in the non-test Go
// files under root, that choose an environment themselves: a read of a
// field named environments, defaultEnvironment or DefaultEnvironment (the
// project file's), or an index into or a range over a field named
// Environments or environments (a lookup by name, a search). Sorted.
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
		indexed := map[*ast.SelectorExpr]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
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
