package check

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/restls/restls/config"
)

// skipDirs are never walked: git's own directory and installed packages.
var skipDirs = map[string]bool{".git": true, "node_modules": true}

// Find returns the scripts under paths (none: "."), sorted and without
// duplicates: every file named, and below every directory the files
// whose path relative to it matches an include glob and no exclude glob
// and that .gitignore does not ignore.
func Find(paths, include, exclude []string) ([]string, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	if len(include) == 0 {
		include = []string{DefaultInclude}
	}
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, root := range paths {
		fi, err := os.Stat(root)
		if err != nil {
			return nil, fmt.Errorf("%w %s: %v", ErrPath, root, unwrapPath(err))
		}
		if !fi.IsDir() {
			add(filepath.Clean(root))
			continue
		}
		if err := walk(root, include, exclude, add); err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// walk adds the scripts below the directory root.
func walk(root string, include, exclude []string, add func(string)) error {
	ig, err := newIgnorer(root)
	if err != nil {
		return err
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%w %s: %v", ErrPath, p, unwrapPath(err))
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p != root && (skipDirs[d.Name()] || ig.ignored(p, true)) {
				return filepath.SkipDir
			}
			return ig.read(p)
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
		if matchAny(include, rel) && !matchAny(exclude, rel) && !ig.ignored(p, false) {
			add(p)
		}
		return nil
	})
}

func matchAny(globs []string, rel string) bool {
	for _, g := range globs {
		if config.MatchGlob(g, rel) {
			return true
		}
	}
	return false
}

// ignorer holds the .gitignore patterns of a repository read so far: the
// files between the repository's top and the directory walked, then each
// directory's as the walk enters it. A pattern applies below its own
// directory only (its domain), so one list serves the whole walk.
type ignorer struct {
	top      string // the repository's top directory, absolute
	patterns []gitignore.Pattern
	matcher  gitignore.Matcher
}

// newIgnorer reads the .gitignore files above root, up to the top of the
// git repository holding it (none when root is in no repository).
func newIgnorer(root string) (*ignorer, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	top := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			top = dir
			break
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	ig := &ignorer{top: top}
	if top == "" {
		ig.top = abs
		return ig, nil
	}
	// In a linked worktree .git is a file; the exclude file is optional.
	_ = ig.readFile(filepath.Join(top, ".git", "info", "exclude"), nil)
	rel, _ := filepath.Rel(top, abs)
	dir := top
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if part == "." || part == "" {
			break
		}
		if err := ig.read(dir); err != nil {
			return nil, err
		}
		dir = filepath.Join(dir, part)
	}
	return ig, nil
}

// read adds the patterns of dir's .gitignore, if it has one.
func (ig *ignorer) read(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	return ig.readFile(filepath.Join(abs, ".gitignore"), ig.components(abs))
}

func (ig *ignorer) readFile(file string, domain []string) error {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w %s: %v", ErrPath, file, unwrapPath(err))
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	added := false
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ig.patterns = append(ig.patterns, gitignore.ParsePattern(line, domain))
		added = true
	}
	if added {
		ig.matcher = gitignore.NewMatcher(ig.patterns)
	}
	return nil
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
	if ig.matcher == nil {
		return false
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return false
	}
	parts := ig.components(abs)
	if len(parts) == 0 || parts[0] == ".." {
		return false
	}
	return ig.matcher.Match(parts, isDir)
}
