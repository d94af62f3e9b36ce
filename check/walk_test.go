package check

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFindAgreesWithGit: the scripts Find takes are the .js files git
// itself does not ignore (git ls-files --others --exclude-standard), on
// patterns where the go-git matcher restls used before issue 23 differed
// from git: a "**/" that must try more than the first directory it
// matches, "dir/**" with a file taken back, "[!...]", escaped trailing
// spaces, nested .gitignore files that take back and ignore again, and
// .git/info/exclude below them all.
func TestFindAgreesWithGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git to compare with: " + err.Error())
	}
	files := map[string]string{
		".gitignore": strings.Join([]string{
			"**/b/c.js",
			"lib/**",
			"!lib/keep.js",
			"[!a]x.js",
			"sp.js\\ ",
			"deep/**/z/*.js",
			"/anchored.js",
			"out/",
			"# comment.js",
		}, "\n") + "\n",
		"sub/.gitignore":       "!anchored.js\n*.gen.js\n!keep.gen.js\n",
		"sub/inner/.gitignore": "keep.gen.js\n",
		"b/x/b/c.js":           "", "b/c.js": "", "x/b/c.js": "", "b/x/c.js": "",
		"lib/a.js": "", "lib/keep.js": "", "lib/sub/d.js": "",
		"ax.js": "", "bx.js": "", "sp.js ": "", "sp.js": "",
		"deep/z/1.js": "", "deep/q/r/z/2.js": "", "deep/q/z/n/3.js": "",
		"anchored.js": "", "sub/anchored.js": "", "sub/out/o.js": "", "out.js": "",
		"sub/a.gen.js": "", "sub/keep.gen.js": "", "sub/inner/keep.gen.js": "", "sub/inner/x.gen.js": "",
		"excluded.js": "", "sub/excluded.js": "", "plain.js": "",
	}
	root := writeTree(t, files)
	git := func(args ...string) string {
		cmd := exec.Command(gitBin, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(root, ".git", "info", "exclude"), []byte("excluded.js\n!sub/excluded.js\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range strings.Split(strings.TrimSpace(git("-c", "core.quotePath=false", "ls-files", "--others", "--exclude-standard", "-z")), "\x00") {
		if strings.HasSuffix(f, ".js") {
			want = append(want, f)
		}
	}
	sort.Strings(want)
	got, _, err := Find([]string{root}, []string{"**/*.js", "*.js "}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, rel(t, root, got)); d != "" {
		t.Errorf("Find and git ls-files differ (-git +Find):\n%s", d)
	}
	// Walked from inside an ignored directory: git takes nothing there.
	got, _, err = Find([]string{filepath.Join(root, "sub", "out")}, nil, nil)
	if err != nil || len(got) != 0 {
		t.Errorf("Find in an ignored directory = %q, %v; want nothing", got, err)
	}
	// Walked by relative paths from the repository (restls check . and
	// restls check sub): the ignorer makes them absolute against the
	// directory the walk began in, and takes the same files.
	t.Chdir(root)
	got, _, err = Find([]string{"."}, []string{"**/*.js", "*.js "}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, rel(t, ".", got)); d != "" {
		t.Errorf("Find(.) and git ls-files differ (-git +Find):\n%s", d)
	}
	got, _, err = Find([]string{"sub"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wantSub []string
	for _, f := range want {
		if strings.HasPrefix(f, "sub/") {
			wantSub = append(wantSub, f)
		}
	}
	if d := cmp.Diff(wantSub, rel(t, ".", got)); d != "" {
		t.Errorf("Find(sub) and git ls-files differ (-git +Find):\n%s", d)
	}
}

// BenchmarkFindGitignore walks 2,000 scripts of a repository with a
// .gitignore by a relative path, as restls check . in a checkout does:
// the ignorer's per-file cost of making each path absolute shows here.
//
//	go test -run '^$' -bench FindGitignore ./check/
func BenchmarkFindGitignore(b *testing.B) {
	files := map[string]string{".gitignore": "out/\n*.gen.js\n"}
	for i := range 2000 {
		files[filepath.Join("src", string(rune('a'+i%20)), strings.Repeat("x", 1+i%7)+string(rune('a'+i/100))+".js")] = ""
	}
	root := b.TempDir()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	b.Chdir(root)
	for b.Loop() {
		got, _, err := Find([]string{"."}, nil, nil)
		if err != nil || len(got) == 0 {
			b.Fatal(len(got), err)
		}
	}
}

// TestFindBadGlob: an --include or --exclude glob that cannot compile is
// an error naming the flag and the glob, not a glob that never matches.
func TestFindBadGlob(t *testing.T) {
	root := writeTree(t, map[string]string{"a.js": ""})
	for _, tc := range []struct {
		include, exclude []string
		want             string
	}{
		{[]string{"src/[a.js"}, nil, `--include "src/[a.js": bad pattern "[a.js"`},
		{nil, []string{`x\`}, `--exclude "x\\": bad pattern "x\\"`},
	} {
		_, _, err := Find([]string{root}, tc.include, tc.exclude)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Find(%q, %q) = %v, want %s", tc.include, tc.exclude, err, tc.want)
		}
	}
}

// TestFindOnce: each script is found once, whether one directory is
// walked or paths overlap (a directory and a file or a directory in it,
// a path named twice).
func TestFindOnce(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.js", "sub/b.js", "sub/deep/c.js"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("var a = 1;\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	all := []string{filepath.Join(dir, "a.js"), filepath.Join(dir, "sub", "b.js"), filepath.Join(dir, "sub", "deep", "c.js")}
	for _, tc := range []struct {
		paths []string
		want  []string
	}{
		{[]string{dir}, all},
		{[]string{dir, filepath.Join(dir, "a.js"), filepath.Join(dir, "sub"), dir}, all},
		{[]string{filepath.Join(dir, "sub", "b.js"), filepath.Join(dir, "sub", "b.js")}, all[1:2]},
	} {
		got, _, err := Find(tc.paths, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Find(%v): (-want +got)\n%s", tc.paths, diff)
		}
	}
}

// TestWalkDirIsWalkDir: walkDir calls back as filepath.WalkDir does (the
// same paths, entries and errors, in the same order, SkipDir and SkipAll
// honoured), on a directory, a file, a link and a missing path as the
// root, and hands listed each directory's names before its entries.
func TestWalkDirIsWalkDir(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.js", "b/c.js", "b/d/e.js", "skip/x.js", "z/y.js", "stop/w.js", "zz.js"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	record := func(walk func(fs.WalkDirFunc) error, stopAt string) []string {
		var got []string
		err := walk(func(p string, d fs.DirEntry, err error) error {
			entry := "nil"
			if d != nil {
				entry = fmt.Sprintf("%s %v", d.Name(), d.IsDir())
			}
			got = append(got, fmt.Sprint(p, " ", entry, " ", err))
			switch filepath.Base(p) {
			case "skip":
				return filepath.SkipDir
			case "c.js":
				return filepath.SkipDir // the rest of b, d included, is skipped
			case stopAt:
				return filepath.SkipAll
			}
			return nil
		})
		return append(got, fmt.Sprint("end ", err))
	}
	for _, root := range []string{dir, filepath.Join(dir, "a.js"), link, filepath.Join(dir, "none")} {
		for _, stop := range []string{"", "w.js"} {
			want := record(func(fn fs.WalkDirFunc) error { return filepath.WalkDir(root, fn) }, stop)
			var listed []string
			got := record(func(fn fs.WalkDirFunc) error {
				return walkDir(root, func(d string, names []string) {
					listed = append(listed, d)
					if ents, err := os.ReadDir(d); err != nil || len(ents) != len(names) {
						t.Errorf("listed %s: %v, the directory holds %d entries (%v)", d, names, len(ents), err)
					}
				}, fn)
			}, stop)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("walk of %s (stop at %q): (-filepath.WalkDir +walkDir)\n%s", root, stop, diff)
			}
			for _, d := range listed {
				if !slices.Contains(got, fmt.Sprint(d, " ", filepath.Base(d), " true <nil>")) {
					t.Errorf("listed %s, which the walk did not enter", d)
				}
			}
		}
	}
}
