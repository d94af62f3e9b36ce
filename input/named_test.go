package input

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNamedPath: a path a committed file names is relative to its
// directory; an absolute one (on any system) is refused with what to
// write instead, and is the file it means: the one it names here inside
// the repository, else the one it names from the repository's top. restls test used to
// join /x.js to the test file's directory, so it meant DIR/x.js.
func TestNamedPath(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(base, "repo")
	for _, d := range []string{".git", "tests", "scripts"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "scripts", "top.js"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	from := filepath.Join(repo, "tests", "a.test.yaml")
	for _, tc := range []struct {
		raw, path, relative string
		refused             bool
	}{
		{raw: "../scripts/x.js", path: filepath.Join(repo, "scripts", "x.js")},
		{raw: "x.js", path: filepath.Join(repo, "tests", "x.js")},
		{raw: "sub\\x.js", path: filepath.Join(repo, "tests", "sub\\x.js")}, // a file name on this system
		// Inside the repository: the same file, relative.
		{raw: filepath.ToSlash(filepath.Join(repo, "scripts", "x.js")), path: filepath.Join(repo, "scripts", "x.js"), refused: true, relative: "../scripts/x.js"},
		// Meant from the repository's top, and a file there.
		{raw: "/scripts/top.js", path: filepath.Join(repo, "scripts", "top.js"), refused: true, relative: "../scripts/top.js"},
		// Neither: no suggestion.
		{raw: "/nowhere/x.js", path: string(filepath.Separator) + filepath.Join("nowhere", "x.js"), refused: true},
		{raw: `\scripts\top.js`, path: filepath.Join(repo, "scripts", "top.js"), refused: true, relative: "../scripts/top.js"},
		{raw: `C:\w\x.js`, refused: true},
		{raw: "c:x.js", refused: true},
	} {
		p, err := NamedPath(from, tc.raw)
		var ae *AbsolutePathError
		if errors.As(err, &ae) != tc.refused || (err != nil) != tc.refused {
			t.Errorf("NamedPath(%q) = %q, %v; refused: %v", tc.raw, p, err, tc.refused)
			continue
		}
		if tc.path != "" && p != tc.path {
			t.Errorf("NamedPath(%q) = %q, want %q", tc.raw, p, tc.path)
		}
		if ae != nil && (ae.Relative != tc.relative || ae.From != from || ae.Path != tc.raw) {
			t.Errorf("NamedPath(%q): %+v, want Relative %q", tc.raw, ae, tc.relative)
		}
	}
	_, err = NamedPath(from, "/scripts/top.js")
	if want := "/scripts/top.js is an absolute path, a file of one machine: write ../scripts/top.js, relative to a.test.yaml's directory, so it names the same file wherever the repository is checked out"; err == nil || err.Error() != want {
		t.Errorf("the message: %v\nwant: %s", err, want)
	}
	_, err = NamedPath(from, "/nowhere/x.js")
	if want := "/nowhere/x.js is an absolute path, a file of one machine: write a path relative to a.test.yaml's directory (../ is its parent) so it names the same file wherever the repository is checked out"; err == nil || err.Error() != want {
		t.Errorf("the message: %v\nwant: %s", err, want)
	}
}

// FuzzNamedPath: any raw is either a path joined to the file's
// directory, or refused as absolute (then on every system it is one),
// never both, and the message names raw.
func FuzzNamedPath(f *testing.F) {
	for _, s := range []string{"../scripts/x.js", "/x.js", `\x.js`, `C:\x.js`, "c:x.js", "", "..", strings.Repeat("../", 5000) + "x.js", "/" + strings.Repeat("a/", 10000), "a:b", "1:x", "\x00/x"} {
		f.Add(s)
	}
	from := filepath.Join(f.TempDir(), "t", "a.test.yaml")
	f.Fuzz(func(t *testing.T, raw string) {
		p, err := NamedPath(from, raw)
		var ae *AbsolutePathError
		switch {
		case err == nil && p != filepath.Join(filepath.Dir(from), filepath.FromSlash(raw)):
			t.Errorf("NamedPath(%q) = %q, not joined to the file's directory", raw, p)
		case err != nil && (!errors.As(err, &ae) || !strings.Contains(err.Error(), raw)):
			t.Errorf("NamedPath(%q): %v", raw, err)
		case err == nil && raw != "" && (raw[0] == '/' || raw[0] == '\\'):
			t.Errorf("NamedPath(%q) takes a rooted path", raw)
		}
	})
}
