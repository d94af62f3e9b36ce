package workspace

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/restls/restls/input"
)

// DefaultScriptGlobs are the files an editor treats as platform scripts
// when its settings name none (the VS Code setting restls.include): the
// platform's script directories and files named like orders.script.js.
// This is their one home; the editor asks (restls/status "scripts", the
// initialize result's experimental.restls) and keeps no copy.
var DefaultScriptGlobs = []string{
	"**/script-code/**/*.js",
	"**/script-handler/**/*.js",
	"**/scripts/**/*.js",
	"**/*.script.js",
}

// TestFileGlob finds the test files of restls test (TestFileSuffix) below
// a folder: the glob an editor watches and searches with.
const TestFileGlob = "**/*" + TestFileSuffix

// ScriptFiles decides which files are platform scripts: the globs in
// force, compiled once. The zero value is DefaultScriptGlobs.
type ScriptFiles struct {
	src   []string
	globs []*input.Glob
}

// defaultScripts is DefaultScriptGlobs compiled.
var defaultScripts = func() ScriptFiles {
	f, err := compileScripts(DefaultScriptGlobs)
	if err != nil {
		panic(err) // a constant above: TestScriptFiles compiles it
	}
	return f
}()

// NewScriptFiles compiles globs (input.FileGlob); no globs is
// DefaultScriptGlobs. A glob that does not compile is left out and named
// in the error; the others still decide (DefaultScriptGlobs when none is
// left).
func NewScriptFiles(globs []string) (ScriptFiles, error) {
	if len(globs) == 0 {
		return defaultScripts, nil
	}
	f, err := compileScripts(globs)
	if len(f.globs) == 0 {
		// Nothing would be a script: the defaults keep the editor useful.
		return defaultScripts, err
	}
	return f, err
}

func compileScripts(globs []string) (ScriptFiles, error) {
	f := ScriptFiles{src: []string{}}
	var bad []string
	for _, g := range globs {
		c, err := input.FileGlob(g)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%q: %v", g, err))
			continue
		}
		f.src = append(f.src, g)
		f.globs = append(f.globs, c)
	}
	if len(bad) > 0 {
		return f, fmt.Errorf("%s: %s", strings.Join(bad, ", "), input.GlobSyntax)
	}
	return f, nil
}

// Globs are the globs in force, as written.
func (f ScriptFiles) Globs() []string {
	if f.src == nil {
		return slices.Clone(DefaultScriptGlobs)
	}
	return slices.Clone(f.src)
}

// Match reports whether the file at path (absolute, or relative to the
// workspace folder) is a platform script.
func (f ScriptFiles) Match(path string) bool {
	globs := f.globs
	if f.src == nil {
		globs = defaultScripts.globs
	}
	slash := filepath.ToSlash(path)
	for _, g := range globs {
		if g.MatchPath(slash) {
			return true
		}
	}
	return false
}
