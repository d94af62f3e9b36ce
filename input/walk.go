package input

import (
	"fmt"
	"path/filepath"
	"strings"
)

// The bounds of every walk of a project tree (restls check's scripts,
// restls test's test files, restls fixtures schema's fixture files, the
// project index's Build, Poll and Update): what a repository holds must
// not make a surface walk a home directory or a vendored tree whole, nor
// follow a tree deeper than any project is. The one home of these limits:
// the walks count through a WalkBound.
const (
	// MaxWalkEntries is how many files and directories one walk looks at.
	MaxWalkEntries = 200_000
	// MaxWalkDepth is how many directories deep below its root a walk
	// goes.
	MaxWalkDepth = 64
)

// SkipDir reports whether a walk of a project leaves out the directory
// named name below the root it walks: every directory whose name starts
// with "." (.git, .vscode, .cache, .github) and node_modules, as the Go
// tool and editors leave them out. A root the user names is walked
// whatever its name (restls check .github/scripts). The one rule of
// every project walk: restls check, restls test, restls fixtures schema,
// restls init and the project index (references, rename, code lens, the
// designer's tests) ask it, so they see the same files.
func SkipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules"
}

// SkipDirGlob is SkipDir as one editor glob of what is below the
// directories it leaves out (VS Code's findFiles exclude, relative to a
// workspace folder; braces, which input's own globs lack): the server
// hands it to editors (lsp.Files) so that their searches for scripts and
// test files leave out what restls check, restls test and the index do.
const SkipDirGlob = "**/{.*,node_modules}/**"

// WalkBound counts one walk's entries (possibly over several roots) and
// checks each directory's depth below the root being walked. The zero
// value is not ready: use NewWalkBound.
type WalkBound struct {
	// MaxEntries and MaxDepth are the bounds (MaxWalkEntries and
	// MaxWalkDepth; a test lowers them).
	MaxEntries, MaxDepth int

	entries int
	root    string
	base    int // separators in root's own path
}

// NewWalkBound returns a bound at MaxWalkEntries and MaxWalkDepth.
func NewWalkBound() *WalkBound {
	return &WalkBound{MaxEntries: MaxWalkEntries, MaxDepth: MaxWalkDepth}
}

// Root starts the walk of root (as given to filepath.WalkDir); the
// entries go on counting from the roots walked before.
func (b *WalkBound) Root(root string) {
	b.root = root
	c := filepath.Clean(root)
	b.base = strings.Count(c, string(filepath.Separator))
	if c == "." || strings.HasSuffix(c, string(filepath.Separator)) {
		b.base-- // "." and "/" add no separator of their own below them
	}
}

// Visit counts the entry p of the walk (a path filepath.WalkDir gave
// below the current root) and returns a *WalkLimitError past a bound.
func (b *WalkBound) Visit(p string, isDir bool) error {
	b.entries++
	if b.entries > b.MaxEntries {
		return &WalkLimitError{Root: b.root, Path: p, Limit: b.MaxEntries}
	}
	if isDir && strings.Count(p, string(filepath.Separator))-b.base > b.MaxDepth && filepath.Clean(p) != filepath.Clean(b.root) {
		return &WalkLimitError{Root: b.root, Path: p, Limit: b.MaxDepth, Depth: true}
	}
	return nil
}

// WalkLimitError is a walk stopped at one of its bounds. Its message
// names the bound and the root; each surface adds what to do.
type WalkLimitError struct {
	Root  string // the root walked
	Path  string // the entry past the bound
	Limit int    // the bound
	Depth bool   // MaxDepth, not MaxEntries
}

func (e *WalkLimitError) Error() string {
	if e.Depth {
		return fmt.Sprintf("%s is more than %d directories below %s", e.Path, e.Limit, e.Root)
	}
	return fmt.Sprintf("more than %d files and directories under %s", e.Limit, e.Root)
}
