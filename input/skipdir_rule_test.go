package input

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestSkipDirIsTheRule: every walk of a directory tree in the module's
// code (filepath.WalkDir, filepath.Walk, fs.WalkDir) asks SkipDir which
// directories to leave out, and no code but input's names node_modules
// itself: restls check and restls test once skipped .git and
// node_modules where the project index skipped every hidden directory,
// and saw other scripts. Test files and test-support packages
// (internal/*test) walk their own trees.
func TestSkipDirIsTheRule(t *testing.T) {
	for _, v := range skipRuleViolations(t, "..") {
		t.Error(v)
	}
}

// skipDecisions are the names only SkipDir may decide on (.git is a
// file git keeps as well, read by name: the rule is its "." prefix).
var skipDecisions = map[string]bool{"node_modules": true}

var helperPackage = regexp.MustCompile(`^internal/[^/]*test/`)

// TestSkipRuleViolations: the rule's test finds a walk that decides on
// its own and a name it decides on, and passes one that asks SkipDir.
func TestSkipRuleViolations(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{
		"own/walk.go":         "package own\nimport \"path/filepath\"\nfunc f() { _ = filepath.WalkDir(\".\", nil) }\nvar skip = \"node_modules\"\n",
		"asks/walk.go":        "package asks\nimport (\"path/filepath\"; \"x/input\")\nfunc f() { _ = filepath.WalkDir(\".\", nil); _ = input.SkipDir(\"x\") }\n",
		"own/a_test.go":       "package own\nvar skip = \"node_modules\"\n",
		"internal/ttest/t.go": "package ttest\nvar skip = \"node_modules\"\n",
		"input/walk.go":       "package input\nvar skip = \"node_modules\"\n",
		"node_modules/m/m.go": "package m\nvar skip = \"node_modules\"\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := skipRuleViolations(t, root)
	want := []string{
		`own/walk.go:3: a walk that does not ask input.SkipDir which directories to leave out`,
		`own/walk.go:4: "node_modules": which directories a walk leaves out is input.SkipDir's to decide; ask it`,
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("violations %q, want %q", got, want)
	}
}

func skipRuleViolations(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path != root && (SkipDir(d.Name()) || d.Name() == "testdata" || rel == "input" || rel == "third_party" || helperPackage.MatchString(rel+"/")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		var walks []ast.Node
		asks := false
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && skipDecisions[s] {
					out = append(out, fmt.Sprintf("%s:%d: %q: which directories a walk leaves out is input.SkipDir's to decide; ask it", rel, fset.Position(n.Pos()).Line, s))
				}
			case *ast.SelectorExpr:
				pkg, ok := n.X.(*ast.Ident)
				if !ok {
					break
				}
				switch {
				case pkg.Name == "input" && n.Sel.Name == "SkipDir":
					asks = true
				case pkg.Name == "filepath" && (n.Sel.Name == "WalkDir" || n.Sel.Name == "Walk"), pkg.Name == "fs" && n.Sel.Name == "WalkDir":
					walks = append(walks, n)
				}
			}
			return true
		})
		if !asks {
			for _, w := range walks {
				out = append(out, fmt.Sprintf("%s:%d: a walk that does not ask input.SkipDir which directories to leave out", rel, fset.Position(w.Pos()).Line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSkipDirGlob: the editors' glob of what SkipDir leaves out
// (SkipDirGlob, "**/{NAME,...}/**" where ".*" is any name starting with
// ".") covers exactly the directory names SkipDir leaves out.
func TestSkipDirGlob(t *testing.T) {
	m := regexp.MustCompile(`^\*\*/\{([^}]*)\}/\*\*$`).FindStringSubmatch(SkipDirGlob)
	if m == nil {
		t.Fatalf("SkipDirGlob %q is not **/{NAME,...}/**", SkipDirGlob)
	}
	alts := strings.Split(m[1], ",")
	covers := func(name string) bool {
		return slices.ContainsFunc(alts, func(a string) bool { return a == name || a == ".*" && strings.HasPrefix(name, ".") })
	}
	for _, name := range []string{".git", ".vscode", ".cache", ".github", "..x", "node_modules", "scripts", "node_modules2", "_build", "a.b", "testdata", "vendor"} {
		if got, want := covers(name), SkipDir(name); got != want {
			t.Errorf("SkipDirGlob covers %q: %v; SkipDir says %v", name, got, want)
		}
	}
}

// TestExtensionSkipGlob: the VS Code extension's one copy of the skip
// glob (SKIP_BEFORE_SERVER, for its search for a service configuration
// before any server runs, which cannot ask one) is SkipDirGlob; every
// other exclude of the extension is the running server's (lsp.Files'
// skip).
func TestExtensionSkipGlob(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "vscode-extension", "src", "settings.ts"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^export const SKIP_BEFORE_SERVER = '([^'\n]*)';$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("vscode-extension/src/settings.ts has no export const SKIP_BEFORE_SERVER = '...';")
	}
	if string(m[1]) != SkipDirGlob {
		t.Errorf("the extension's SKIP_BEFORE_SERVER is %q, SkipDirGlob %q: make them one", m[1], SkipDirGlob)
	}
}
