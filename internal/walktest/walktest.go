// Package walktest builds the trees the tests of restls's project walks
// share: the tree of the one directory-skip rule (input.SkipDir), which
// restls check, restls test, restls fixtures schema and the project
// index must all walk alike, and a tree as deep as the walks' depth
// bound. It is test support only and imports nothing of restls.
package walktest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Write writes each file of files (slash-separated paths relative to
// root, to their text), making the directories between.
func Write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Chain is depth directory names, d0/d1/.../d<depth-1>, slash-separated:
// a file in it is depth directories below the root it is joined to.
func Chain(depth int) string {
	parts := make([]string, depth)
	for i := range parts {
		parts[i] = fmt.Sprintf("d%d", i)
	}
	return strings.Join(parts, "/")
}

// Deep writes text to name in a Chain of depth directories below root
// and returns the file's path.
func Deep(t testing.TB, root string, depth int, name, text string) string {
	t.Helper()
	rel := name
	if depth > 0 {
		rel = Chain(depth) + "/" + name
	}
	Write(t, root, map[string]string{rel: text})
	return filepath.Join(root, filepath.FromSlash(rel))
}

// SkipTree is the tree of the one directory-skip rule: the same file in
// directories every project walk enters and in directories none enters
// below the root it walks, and in a hidden directory named as a root.
type SkipTree struct {
	// Root is the tree's root (a new temporary directory).
	Root string
	// Kept are the files a walk of Root finds, Skipped those it leaves
	// out; slash-separated paths relative to Root, sorted.
	Kept, Skipped []string
	// HiddenRoot is a hidden directory (relative to Root) a user names
	// as the root of a walk (restls check .github/scripts): it is walked,
	// and HiddenKept (relative to Root) are the files that walk finds;
	// the hidden directory below it is left out all the same.
	HiddenRoot string
	HiddenKept []string
}

// SkipRule writes name (with text) in every directory of the skip rule's
// tree and returns it: a project's own directories are walked; every
// directory whose name starts with "." (.git, .vscode, .cache, one deep
// in the project) and node_modules is left out below the walk's root.
func SkipRule(t testing.TB, name, text string) SkipTree {
	t.Helper()
	st := SkipTree{
		Root:       t.TempDir(),
		Kept:       []string{name, "scripts/" + name, "scripts/sub/" + name},
		Skipped:    []string{".cache/x/" + name, ".git/" + name, ".github/scripts/" + name, ".github/scripts/.old/" + name, ".vscode/" + name, "node_modules/m/" + name, "scripts/.hidden/" + name, "scripts/node_modules/" + name},
		HiddenRoot: ".github/scripts",
		HiddenKept: []string{".github/scripts/" + name},
	}
	slices.Sort(st.Kept)
	slices.Sort(st.Skipped)
	files := map[string]string{}
	for _, f := range append(append([]string{}, st.Kept...), st.Skipped...) {
		files[f] = text
	}
	Write(t, st.Root, files)
	return st
}

// Rel is paths relative to root, slash-separated, sorted.
func Rel(t testing.TB, root string, paths []string) []string {
	t.Helper()
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		r, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(r))
	}
	slices.Sort(out)
	return out
}
