package lsp

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps the layering: lsp adapts hints and config to the
// protocol and must not reach the runtime or the command.
func TestImports(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/restls/restls/") &&
				path != "github.com/restls/restls/config" && path != "github.com/restls/restls/hints" {
				t.Errorf("%s imports %s; lsp may import only config and hints of restls", f, path)
			}
		}
	}
}
