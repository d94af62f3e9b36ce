package input

import (
	"go/ast"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// yamlDecodes are yaml/v4's ways of decoding text, which only yaml.go
// may call: everywhere else the budget would be bypassed. Decoding a
// node that came from YAMLNode (Node.Load, Node.Decode) is bounded by it.
var yamlDecodes = regexp.MustCompile(`\byaml\.(Unmarshal|NewDecoder|Load|NewLoader)\(`)

// TestYAMLDecodesGoThroughInput forbids decoding YAML text anywhere in
// the module but here, as internal/layering forbids imports.
func TestYAMLDecodesGoThroughInput(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "node_modules" || name == "testdata" || strings.HasPrefix(name, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || rel == filepath.Join("input", "yaml.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if yamlDecodes.MatchString(line) {
				t.Errorf("%s:%d: decodes YAML text without the budget: use input.YAMLNode (then DecodeYAMLNode) or NewYAMLDecoder\n\t%s", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestYAMLNodeDecodesGoThroughInput: a *yaml.Node is decoded through
// DecodeYAMLNode or DecodeYAMLValue only, never with its own Decode or
// Load, whose check of duplicate keys is quadratic (decodeNode). The
// calls are found by type, so a json.Decoder's Decode is not one.
func TestYAMLNodeDecodesGoThroughInput(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the module (a few seconds); -short leaves it out")
	}
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo, Dir: ".."}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range pkgs {
		if p.PkgPath == "github.com/restls/restls/input" {
			continue
		}
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Decode" && sel.Sel.Name != "Load" {
					return true
				}
				s := p.TypesInfo.Selections[sel]
				if s == nil || s.Kind() != types.MethodVal {
					return true
				}
				checked++
				recv := s.Recv()
				if ptr, ok := recv.(*types.Pointer); ok {
					recv = ptr.Elem()
				}
				named, ok := types.Unalias(recv).(*types.Named)
				if !ok || named.Obj().Name() != "Node" || named.Obj().Pkg() == nil || !strings.HasPrefix(named.Obj().Pkg().Path(), "go.yaml.in/yaml/v4") {
					return true
				}
				pos := p.Fset.Position(sel.Pos())
				if strings.HasSuffix(pos.Filename, "_test.go") {
					return true
				}
				t.Errorf("%s:%d: yaml.Node.%s: decode through input.DecodeYAMLNode or input.DecodeYAMLValue", pos.Filename, pos.Line, sel.Sel.Name)
				return true
			})
		}
	}
	if checked == 0 {
		t.Fatal("no Decode or Load method call found: the check looks at nothing")
	}
}
