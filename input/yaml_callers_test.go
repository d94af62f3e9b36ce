package input

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
