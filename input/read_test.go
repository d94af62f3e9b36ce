package input

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int64{10, 11, 1 << 20} {
		if data, err := read(path, Config, limit, 0); err != nil || string(data) != "0123456789" {
			t.Errorf("limit %d: %q, %v", limit, data, err)
		}
	}
	_, err := read(path, Config, 9, 0)
	var fe *FileError
	if !errors.As(err, &fe) || !errors.Is(err, ErrTooLarge) || fe.Size != 10 || fe.Limit != 9 {
		t.Errorf("limit 9: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), Config); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

// TestKindLimits: every kind has a limit and a name (a new kind without
// one would read without bound).
func TestKindLimits(t *testing.T) {
	for k := Config; k <= Input; k++ {
		if k.Limit() <= 0 || k.String() == "" {
			t.Errorf("kind %d: limit %d, name %q", k, k.Limit(), k)
		}
	}
}

// TestTooLargeBySize: a sparse file above the limit is refused by its
// size, before a byte is read, and the message names the kind's limit.
func TestTooLargeBySize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.js")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil {
		t.Skip("no sparse files here:", err)
	}
	f.Close()
	allocs := testing.AllocsPerRun(3, func() { _, _ = ReadFile(path, Script) })
	_, err = ReadFile(path, Script)
	if !errors.Is(err, ErrTooLarge) || err.Error() != "the file is 3072 MiB, above the 16 MiB limit for scripts" {
		t.Errorf("got %v", err)
	}
	if allocs > 20 {
		t.Errorf("%v allocations to refuse a 3 GiB file", allocs)
	}
}

// TestReadAtMostGrowing: a file that grows past the limit while it is read
// is refused once one byte past the limit has been read.
func TestReadAtMostGrowing(t *testing.T) {
	grown := strings.NewReader(strings.Repeat("x", 1000))
	_, err := readAtMost("f", Config, grown, 10, 100)
	var fe *FileError
	if !errors.As(err, &fe) || !errors.Is(err, ErrTooLarge) || fe.Size != 101 || grown.Len() != 1000-101 {
		t.Errorf("got %v (read %d bytes)", err, 1000-grown.Len())
	}
	data, err := readAtMost("f", Config, strings.NewReader("0123456789ab"), 4, 100)
	if err != nil || string(data) != "0123456789ab" {
		t.Errorf("a file that grew within the limit: %q, %v", data, err)
	}
}

// TestDevZeroMemory: reading /dev/zero allocates nothing worth counting
// (it grew by 0.7 GB/s before issue 13, and openapi's reader by 1.2 GiB
// in 4.5 s before issue 23).
func TestDevZeroMemory(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for k := Config; k <= Input; k++ {
		allocs := testing.AllocsPerRun(5, func() { _, _ = ReadFile("/dev/zero", k) })
		if allocs > 20 {
			t.Errorf("%s: %v allocations per read of /dev/zero", k, allocs)
		}
		if _, err := ReadFile("/dev/zero", k); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a character device") {
			t.Errorf("%s: %v", k, err)
		}
	}
}

// TestScriptNotText: a script with a NUL byte (/proc/self/environ) or a
// byte that is not UTF-8 is refused, and the message quotes none of it.
func TestScriptNotText(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"nul":    "SECRET_TOKEN=abc\x00HOME=/root\x00",
		"latin1": "var s = 'caf\xe9 SECRET';",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFile(path, Script)
		if !errors.Is(err, ErrNotText) || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: %v", name, err)
		}
		// Other kinds are parsed, not echoed: they read it.
		if _, err := ReadFile(path, Fixtures); err != nil {
			t.Errorf("%s as fixtures: %v", name, err)
		}
	}
	path := filepath.Join(dir, "ok.js")
	if err := os.WriteFile(path, []byte("// é 😀\nreturn 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path, Script); err != nil {
		t.Errorf("UTF-8 script: %v", err)
	}
}

// FuzzNotText checks notText against the library's UTF-8 check.
func FuzzNotText(f *testing.F) {
	for _, s := range []string{"", "a", "\x00", "é", "\xe9", "\xed\xa0\x80", "\xf4\x90\x80\x80", strings.Repeat("ü", 5000) + "\x00", strings.Repeat("x", 1<<16) + "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		off := notText(data)
		text := utf8.Valid(data) && !bytes.Contains(data, []byte{0})
		if text != (off < 0) {
			t.Fatalf("notText(%q) = %d, text: %v", data, off, text)
		}
		// The offset is where text stops: the prefix is text.
		if off >= 0 && (bytes.Contains(data[:off], []byte{0}) || !utf8.Valid(data[:off])) {
			t.Fatalf("notText(%q) = %d: not text before the offset", data, off)
		}
	})
}

// repo makes root/.git, root/in/a.txt and outside/secret.txt.
func repo(t *testing.T) (root, outside string) {
	base := t.TempDir()
	root, outside = filepath.Join(base, "repo"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, ".git"), filepath.Join(root, "in", "deep"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, c := range map[string]string{filepath.Join(root, "in", "a.txt"): "inside", filepath.Join(outside, "secret.txt"): "SECRET"} {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

// TestReadFileIn: "../" and symbolic links out of the root are refused,
// naming the file's target and the root; links that stay inside are
// followed.
func TestReadFileIn(t *testing.T) {
	root, outside := repo(t)
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "in", "link.txt")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Symlink("a.txt", filepath.Join(root, "in", "good.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "in", "dirlink")); err != nil {
		t.Fatal(err)
	}
	rroot, _ := filepath.EvalSymlinks(root)
	for _, p := range []string{
		filepath.Join(root, "in", "..", "..", "outside", "secret.txt"),
		filepath.Join(root, "in", "link.txt"),
		filepath.Join(root, "in", "dirlink", "secret.txt"),
	} {
		data, err := ReadFileIn(root, p, Fixtures)
		var fe *FileError
		if !errors.As(err, &fe) || !errors.Is(err, ErrOutside) || data != nil {
			t.Errorf("%s: %q, %v", p, data, err)
			continue
		}
		if !strings.Contains(err.Error(), rroot) || !strings.Contains(err.Error(), "secret.txt") || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: the message does not name the root and the target: %v", p, err)
		}
	}
	for _, p := range []string{filepath.Join(root, "in", "a.txt"), filepath.Join(root, "in", "good.txt"), filepath.Join(root, "in", "deep", "..", "a.txt")} {
		if data, err := ReadFileIn(root, p, Fixtures); err != nil || string(data) != "inside" {
			t.Errorf("%s: %q, %v", p, data, err)
		}
	}
	if _, err := ReadFileIn(root, filepath.Join(root, "missing"), Fixtures); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func TestRootOf(t *testing.T) {
	root, outside := repo(t)
	if got := RootOf(filepath.Join(root, "in", "deep", "x.test.yaml")); got != root {
		t.Errorf("in a repository: %s, want %s", got, root)
	}
	if got := RepoRoot(filepath.Join(outside, "x")); got != "" && !Within(got, outside) {
		t.Logf("the temporary directory is in a repository (%s)", got)
	} else if got := RootOf(filepath.Join(outside, "x.test.yaml")); got != outside {
		t.Errorf("outside a repository and the working directory: %s, want %s", got, outside)
	}
}

// TestWriteFileIn is finding 14 of issue 23: a test file that is a link
// out of the repository is not written through.
func TestWriteFileIn(t *testing.T) {
	root, outside := repo(t)
	link := filepath.Join(root, "in", "victim.test.yaml")
	if err := os.Symlink(filepath.Join("..", "..", "outside", "secret.txt"), link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := WriteFileIn(root, link, []byte("pwned")); !errors.Is(err, ErrOutside) {
		t.Errorf("through a link out: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != "SECRET" {
		t.Errorf("the outside file was rewritten: %q", b)
	}
	in := filepath.Join(root, "in", "a.txt")
	if err := os.Chmod(in, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileIn(root, in, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(in); string(b) != "new" {
		t.Errorf("got %q", b)
	}
	if fi, _ := os.Stat(in); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	if err := WriteFileIn(root, filepath.Join(root, "in"), []byte("x")); err == nil {
		t.Error("a directory was written")
	}
}

// TestWriteFileInLinkInside: a test file that is a link to another file
// inside the repository is written through (the link stays a link, its
// target gets the text), and nothing is left beside it.
func TestWriteFileInLinkInside(t *testing.T) {
	root, _ := repo(t)
	link := filepath.Join(root, "in", "b.test.yaml")
	if err := os.Symlink("a.txt", link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := WriteFileIn(root, link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "in", "a.txt")); string(b) != "new" {
		t.Errorf("target holds %q", b)
	}
	if entries, _ := os.ReadDir(filepath.Join(root, "in")); len(entries) != 3 { // a.txt, b.test.yaml, deep
		t.Errorf("left in the directory: %v", entries)
	}
}

// TestCheckWriteTarget: --record's file is checked before any call.
func TestCheckWriteTarget(t *testing.T) {
	dir := t.TempDir()
	if err := CheckWriteTarget(filepath.Join(dir, "new.mock.yaml")); err != nil {
		t.Errorf("a new file in a directory: %v", err)
	}
	err := CheckWriteTarget(filepath.Join(dir, "missing", "x.mock.yaml"))
	if !errors.Is(err, ErrNoDir) || !strings.Contains(err.Error(), filepath.Join(dir, "missing")) {
		t.Errorf("missing directory: %v", err)
	}
	if err := CheckWriteTarget(dir); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a directory as the file: %v", err)
	}
}

// TestWithin: a path is within root when it is root or below it, a name
// that starts with ".." included; a sibling with root's name as its
// prefix, or a parent, is not.
func TestWithin(t *testing.T) {
	t.Parallel()
	root := filepath.Join(string(filepath.Separator), "p", "a")
	for _, c := range []struct {
		p    string
		want bool
	}{
		{root, true},
		{filepath.Join(root, "b", "c.js"), true},
		{filepath.Join(root, "..b"), true},
		{filepath.Join(string(filepath.Separator), "p", "ab"), false},
		{filepath.Join(string(filepath.Separator), "p"), false},
		{filepath.Join(string(filepath.Separator), "q", "a"), false},
	} {
		if got := Within(root, c.p); got != c.want {
			t.Errorf("Within(%q, %q) = %v, want %v", root, c.p, got, c.want)
		}
	}
}
