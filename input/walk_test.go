package input

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWalkBound: a walk stops past MaxDepth directories below its root
// (whatever form the root takes) and past MaxEntries entries over all
// its roots.
func TestWalkBound(t *testing.T) {
	dir := t.TempDir()
	deep := dir
	for i := range 5 {
		deep = filepath.Join(deep, "d"+string(rune('0'+i)))
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	walk := func(b *WalkBound, root string) error {
		b.Root(root)
		return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return b.Visit(p, d.IsDir())
		})
	}
	t.Chdir(dir)
	for _, root := range []string{dir, dir + "/", ".", "./", "d0/.."} {
		b := NewWalkBound()
		b.MaxDepth = 5
		if err := walk(b, root); err != nil {
			t.Errorf("%q at depth 5: %v", root, err)
		}
		b = NewWalkBound()
		b.MaxDepth = 4
		var le *WalkLimitError
		if err := walk(b, root); !errors.As(err, &le) || !le.Depth || !strings.HasSuffix(le.Path, "d4") || !strings.Contains(err.Error(), "more than 4 directories below "+root) {
			t.Errorf("%q at depth 4: %v", root, err)
		}
	}
	b := NewWalkBound()
	b.MaxEntries = 11 // two walks of 6 entries
	if err := walk(b, dir); err != nil {
		t.Fatal(err)
	}
	var le *WalkLimitError
	if err := walk(b, "d0/.."); !errors.As(err, &le) || le.Depth || err.Error() != "more than 11 files and directories under d0/.." {
		t.Errorf("entries: %v", err)
	}
}
