package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseProject: any content decodes to a project or to diagnostics
// that name a place in the file, never a panic; an alias bomb or a deep
// nesting is refused by input's budget, not expanded.
func FuzzParseProject(f *testing.F) {
	f.Add([]byte(fullProject))
	f.Add([]byte(""))
	f.Add([]byte("configRoot: [a, b]\ncheck: {strict: maybe}\n"))
	files, _ := filepath.Glob("testdata/unknown/*.yaml")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	// Deep: nested mappings under a free key, and a long flow list.
	f.Add([]byte("environments:\n" + strings.Repeat("  a:\n", 200)))
	f.Add([]byte("environments: " + strings.Repeat("{a: ", 500) + strings.Repeat("}", 500) + "\n"))
	f.Add([]byte("check:\n  include: [" + strings.Repeat("\"**/x/**\", ", 5000) + "\"a\"]\n"))
	// Large: many serviceIds and globs.
	var b strings.Builder
	b.WriteString("openapi:\n")
	for i := range 3000 {
		b.WriteString("  svc-" + strings.Repeat("x", i%40) + string(rune('a'+i%26)) + ": apis/a.yaml\n")
	}
	b.WriteString("scriptKinds:\n")
	for i := range 2000 {
		b.WriteString("  \"" + strings.Repeat("*/", i%30) + "t\": scriptTask\n")
	}
	f.Add([]byte(b.String()))
	// An alias bomb.
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i := range 8 {
		prev, next := string(rune('a'+i)), string(rune('b'+i))
		bomb += next + ": &" + next + " [" + strings.Repeat("*"+prev+", ", 9) + "*" + prev + "]\n"
	}
	f.Add([]byte("environments:\n  " + strings.ReplaceAll(bomb, "\n", "\n  ") + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := ParseProject("restls.yaml", data)
		for _, d := range p.Diagnostics {
			if d.File != "restls.yaml" || d.Line < 1 || d.RuneCol < 1 || d.Code == "" || d.Message == "" {
				t.Fatalf("diagnostic without a place: %+v", d)
			}
		}
		if !p.HasErrors() {
			for _, name := range append(p.EnvironmentNames(), "") {
				if _, err := p.Sources(name); err != nil {
					t.Fatalf("environment %q of a clean file: %v", name, err)
				}
			}
		}
	})
}
