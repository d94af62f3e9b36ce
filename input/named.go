package input

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// NamedPath is the file that a committed file at from names by raw, a
// path written in it (a test file's script: and fixtures:): raw is
// relative to from's directory, with "/" (or the system's separator).
// This is the one rule of such paths: restls test, the project index
// (and so the designer, the editor and the MCP server) and the debugger
// resolve them here, so a test file means the same file through every
// door.
//
// An absolute raw (/x.js, \x.js, C:\x.js, C:x.js) names a file of one
// machine, and a committed file must work on every machine that checks
// the repository out: it is refused with an *AbsolutePathError. path is
// then the file it means, for a caller that only needs to know which
// (the index matching test files to scripts, so that the run of that
// script's tests reports the refusal): the one the error's Relative
// names, else raw, cleaned.
// Joining it to from's directory, as restls test did, made /x.js mean
// DIR/x.js without a word.
func NamedPath(from, raw string) (path string, err error) {
	p := filepath.FromSlash(raw)
	if !absolute(raw) {
		return filepath.Join(filepath.Dir(from), p), nil
	}
	p = filepath.Clean(p)
	rel := relativeFor(from, p)
	if rel != "" {
		p = filepath.Join(filepath.Dir(from), filepath.FromSlash(rel))
	}
	return p, &AbsolutePathError{From: from, Path: raw, Relative: rel}
}

// absolute reports whether raw is a path that is absolute, or rooted, on
// some system: it starts with / or \, or a drive letter and a colon.
func absolute(raw string) bool {
	if raw == "" {
		return false
	}
	if raw[0] == '/' || raw[0] == '\\' || filepath.IsAbs(raw) {
		return true
	}
	c := raw[0] | 0x20 // lower case
	return len(raw) >= 2 && raw[1] == ':' && c >= 'a' && c <= 'z'
}

// relativeFor is what from would write for the absolute p, slash
// separated: p relative to from's directory when p is inside from's
// repository (RootOf), else when p read from the repository's top (a
// "/scripts/x.js" meant from there) is a file there; "" when neither.
func relativeFor(from, p string) string {
	dir, err := filepath.Abs(filepath.Dir(from))
	if err != nil {
		return ""
	}
	root := RootOf(from)
	if !filepath.IsAbs(p) { // \x.js or C:\x.js here: read from the top
		if len(p) >= 2 && p[1] == ':' {
			p = p[2:]
		}
		p = filepath.Join(string(filepath.Separator), filepath.FromSlash(strings.ReplaceAll(p, `\`, "/")))
	}
	candidates := []string{p, filepath.Join(root, p)}
	for i, c := range candidates {
		if !Within(root, c) {
			continue
		}
		if i == 1 {
			if _, err := os.Stat(c); err != nil {
				continue
			}
		}
		if rel, err := filepath.Rel(dir, c); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return ""
}

// AbsolutePathError is NamedPath's refusal of an absolute path.
type AbsolutePathError struct {
	// From is the file that names Path.
	From string
	// Path is the path as written.
	Path string
	// Relative is what to write instead, relative to From's directory;
	// "" when no file of the repository is meant.
	Relative string
}

func (e *AbsolutePathError) Error() string {
	instead := "a path relative to " + filepath.Base(e.From) + "'s directory (../ is its parent)"
	if e.Relative != "" {
		instead = e.Relative + ", relative to " + filepath.Base(e.From) + "'s directory,"
	}
	return fmt.Sprintf("%s is an absolute path, a file of one machine: write %s so it names the same file wherever the repository is checked out", e.Path, instead)
}
