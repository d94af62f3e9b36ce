package check

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/restls/restls/input"
)

// walkScripts hands add once each script under paths (none: "."), in
// the order of the walk, as it finds it: every file named, and below
// every directory the files whose path relative to it matches an include
// glob and no exclude glob and that .gitignore does not ignore. A
// .gitignore that cannot be read (a directory, a FIFO, a link to a
// device, above input.Ignore's limit) is a warning, and the walk goes on
// without its patterns. listed, when set, gets the names of each
// directory walked before any of its files is handed over. fixture, when
// set, gets once each fixture and test file (fixtureGlobs and
// isFixtureFile, in place of include): restls check finds them in the
// walk for its scripts instead of walking the tree a second time.
func walkScripts(paths, include, exclude []string, add func(string), listed func(dir string, names []string), fixture func(string)) ([]Finding, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	if len(include) == 0 {
		include = []string{DefaultInclude}
	}
	inc, err := compileGlobs("--include", include)
	if err != nil {
		return nil, err
	}
	exc, err := compileGlobs("--exclude", exclude)
	if err != nil {
		return nil, err
	}
	// One directory walked finds each file once; paths that overlap (a
	// directory and a file or directory in it, one named twice) are
	// deduplicated, by a map that a single path does without (a map
	// insert per script was 0.7% of checking make bench-oxlint's corpus).
	once, fixtureOnce := add, fixture
	if len(paths) > 1 {
		once, fixtureOnce = onlyOnce(add), onlyOnce(fixture)
	}
	var fix []*input.Glob
	if fixture != nil {
		if fix, err = compileGlobs("fixtures", fixtureGlobs()); err != nil {
			return nil, err
		}
	}
	var warnings []Finding
	bound := input.NewWalkBound()
	bound.MaxEntries, bound.MaxDepth = maxWalkEntries, maxWalkDepth
	for _, root := range paths {
		fi, err := os.Stat(root)
		if err != nil {
			return nil, fmt.Errorf("%w %s: %v", ErrPath, root, unwrapPath(err))
		}
		if !fi.IsDir() {
			p := filepath.Clean(root)
			once(p)
			if fixture != nil && isFixtureFile(p) {
				fixtureOnce(p)
			}
			continue
		}
		w, err := walk(root, inc, exc, bound, once, listed, fix, fixtureOnce)
		warnings = append(warnings, w...)
		if err != nil {
			return nil, err
		}
	}
	return warnings, nil
}

// onlyOnce is add called once per path, nil when add is.
func onlyOnce(add func(string)) func(string) {
	if add == nil {
		return nil
	}
	seen := map[string]bool{}
	return func(p string) {
		if !seen[p] {
			seen[p] = true
			add(p)
		}
	}
}

// The bounds of the walk (input's, lowered by tests).
var maxWalkEntries, maxWalkDepth = input.MaxWalkEntries, input.MaxWalkDepth

// walk adds the scripts below the directory root, and hands fixture the
// fixture and test files matching fix (when set), and returns the
// warnings about the ignore files it could not read. bound counts the
// entries of every root walked: past it, the walk stops with an error
// that names the bound, the root and what to do.
func walk(root string, include, exclude []*input.Glob, bound *input.WalkBound, add func(string), listed func(string, []string), fix []*input.Glob, fixture func(string)) ([]Finding, error) {
	ig, err := newIgnorer(root)
	if err != nil {
		return nil, err
	}
	bound.Root(root)
	err = walkDir(root, listed, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%w %s: %v", ErrPath, p, unwrapPath(err))
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p != root && (input.SkipDir(d.Name()) || ig.ignored(p, true)) {
				return filepath.SkipDir
			}
			if err := bound.Visit(p, true); err != nil {
				return walkLimit(err)
			}
			ig.read(p)
			return nil
		}
		if err := bound.Visit(p, false); err != nil {
			return walkLimit(err)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			// A link to a directory is not walked (no cycles); a link to
			// a file is that file; a dangling one is reported unreadable.
			if fi, err := os.Stat(p); err == nil && !fi.Mode().IsRegular() {
				return nil
			}
		} else if !d.Type().IsRegular() {
			return nil
		}
		script := matchAny(include, rel)
		isFixture := fixture != nil && isFixtureFile(p) && matchAny(fix, rel)
		if (script || isFixture) && !matchAny(exclude, rel) && !ig.ignored(p, false) {
			if script {
				add(p)
			}
			if isFixture {
				fixture(p)
			}
		}
		return nil
	})
	return ig.warnings, err
}

// walkDir is filepath.WalkDir (the same order, errors and SkipDir), which
// also hands listed, when set, the names of each directory it read,
// before walking them: restls check gives them to the session, which
// would otherwise list every directory a second time for the recorded
// answers beside its scripts.
func walkDir(root string, listed func(string, []string), fn fs.WalkDirFunc) error {
	info, err := os.Lstat(root)
	if err != nil {
		err = fn(root, nil, err)
	} else {
		err = walkDirEntry(root, fs.FileInfoToDirEntry(info), listed, fn)
	}
	if err == filepath.SkipDir || err == filepath.SkipAll {
		return nil
	}
	return err
}

func walkDirEntry(path string, d fs.DirEntry, listed func(string, []string), fn fs.WalkDirFunc) error {
	if err := fn(path, d, nil); err != nil || !d.IsDir() {
		if err == filepath.SkipDir && d.IsDir() {
			err = nil
		}
		return err
	}
	dirs, readErr := os.ReadDir(path)
	if readErr != nil {
		if err := fn(path, d, readErr); err != nil {
			if err == filepath.SkipDir && d.IsDir() {
				err = nil
			}
			return err
		}
	}
	if listed != nil && readErr == nil {
		names := make([]string, len(dirs))
		for i, e := range dirs {
			names[i] = e.Name()
		}
		listed(path, names)
	}
	for _, d1 := range dirs {
		if err := walkDirEntry(filepath.Join(path, d1.Name()), d1, listed, fn); err != nil {
			if err == filepath.SkipDir {
				break
			}
			return err
		}
	}
	return nil
}

// walkLimit is the error of a walk stopped at a bound, saying what to do.
func walkLimit(err error) error {
	if err.(*input.WalkLimitError).Depth {
		return fmt.Errorf("%w, where restls check stops looking for scripts: name fewer directories, nearer the scripts (restls check DIR...), or ignore the deep ones in .gitignore", err)
	}
	return fmt.Errorf("%w, where restls check stops looking for scripts: name fewer directories (restls check DIR...), or ignore what is no part of the project in .gitignore", err)
}

// compileGlobs compiles the --include or --exclude globs (input.FileGlob).
func compileGlobs(flag string, globs []string) ([]*input.Glob, error) {
	out := make([]*input.Glob, len(globs))
	for i, glob := range globs {
		g, err := input.FileGlob(glob)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %v: %s", flag, glob, err, input.GlobSyntax)
		}
		out[i] = g
	}
	return out, nil
}

func matchAny(globs []*input.Glob, rel string) bool {
	for _, g := range globs {
		if g.MatchPath(rel) {
			return true
		}
	}
	return false
}

// ignorer holds the .gitignore patterns of a repository read so far: the
// files between the repository's top and the directory walked, then each
// directory's as the walk enters it, kept by directory: a path is matched
// against its own ancestors' patterns only, the deepest first, as git
// gives a deeper .gitignore the last word.
type ignorer struct {
	top string // the repository's top directory, absolute
	// wd is the working directory when the walk began: relative paths
	// are made absolute against it, not by filepath.Abs, which asks the
	// system for it again for every file (two system calls each).
	wd    string
	wdErr error
	// byDir: the patterns of each directory's .gitignore, by the
	// directory's path relative to top, slash-separated ("" for top).
	byDir map[string][]input.IgnorePattern
	// exclude: .git/info/exclude, below every .gitignore.
	exclude []input.IgnorePattern
	// all: the directory walked is inside an ignored one, so everything
	// in it is ignored (git cannot take a file back from an ignored
	// directory).
	all bool
	// warnings are the ignore files that could not be read.
	warnings []Finding
}

// newIgnorer reads the .gitignore files above root, up to the top of the
// git repository holding it (none when root is in no repository).
func newIgnorer(root string) (*ignorer, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	top := input.RepoRoot(abs)
	ig := &ignorer{top: top, byDir: map[string][]input.IgnorePattern{}}
	ig.wd, ig.wdErr = os.Getwd()
	if top == "" {
		ig.top = abs
		return ig, nil
	}
	// In a linked worktree .git is a file; the exclude file is optional.
	ig.exclude = ig.readFile(filepath.Join(top, ".git", "info", "exclude"))
	rel, _ := filepath.Rel(top, abs)
	dir := top
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if part == "." || part == "" {
			break
		}
		ig.read(dir)
		dir = filepath.Join(dir, part)
		if ig.ignored(dir, true) {
			ig.all = true
		}
	}
	return ig, nil
}

// read adds the patterns of dir's .gitignore, if it has one.
func (ig *ignorer) read(dir string) {
	abs, err := ig.abs(dir)
	if err != nil {
		return
	}
	if patterns := ig.readFile(filepath.Join(abs, ".gitignore")); len(patterns) > 0 {
		ig.byDir[strings.Join(ig.components(abs), "/")] = patterns
	}
}

// readFile returns the patterns of a .gitignore-style file, none when
// there is no such file. One that cannot be read is a warning: the walk
// goes on without its patterns.
func (ig *ignorer) readFile(file string) []input.IgnorePattern {
	data, err := input.ReadFile(file, input.Ignore)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil
	}
	if err != nil {
		ig.warnings = append(ig.warnings, Finding{File: file, Severity: SeverityWarning, Code: CodeIgnoreUnreadable,
			Message: fmt.Sprintf("ignore file not read: %v; its patterns are not applied, so the files it would ignore are checked (make it a regular file)", unwrapPath(err))})
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	var patterns []input.IgnorePattern
	for sc.Scan() {
		if p, ok := input.ParseIgnorePattern(strings.TrimSuffix(sc.Text(), "\r")); ok {
			patterns = append(patterns, p)
		}
	}
	return patterns
}

// abs is filepath.Abs(p) against the working directory the walk began in.
func (ig *ignorer) abs(p string) (string, error) {
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	if ig.wdErr != nil {
		return "", ig.wdErr
	}
	return filepath.Join(ig.wd, p), nil
}

// components is p relative to the repository's top, split at "/".
func (ig *ignorer) components(abs string) []string {
	rel, err := filepath.Rel(ig.top, abs)
	if err != nil || rel == "." {
		return nil
	}
	return strings.Split(filepath.ToSlash(rel), "/")
}

// ignored reports whether .gitignore ignores p.
func (ig *ignorer) ignored(p string, isDir bool) bool {
	if ig.all {
		return true
	}
	if len(ig.byDir) == 0 && len(ig.exclude) == 0 {
		return false
	}
	abs, err := ig.abs(p)
	if err != nil {
		return false
	}
	parts := ig.components(abs)
	if len(parts) == 0 || parts[0] == ".." {
		return false
	}
	// The ancestors of p, deepest first: each one's key is a prefix of
	// rel, so none is built.
	rel := strings.Join(parts, "/")
	end := len(rel)
	for d := len(parts) - 1; d >= 0; d-- {
		end -= len(parts[d])
		key := rel[:max(end-1, 0)]
		if v := lastMatch(ig.byDir[key], parts[d:], isDir); v != input.NotMatched {
			return v == input.Ignored
		}
		end--
	}
	return lastMatch(ig.exclude, parts, isDir) == input.Ignored
}

// lastMatch is what the last of patterns that speaks of rel says.
func lastMatch(patterns []input.IgnorePattern, rel []string, isDir bool) input.IgnoreVerdict {
	for i := len(patterns) - 1; i >= 0; i-- {
		if v := patterns[i].Match(rel, isDir); v != input.NotMatched {
			return v
		}
	}
	return input.NotMatched
}
