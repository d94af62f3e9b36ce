package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/restls/restls/config"
	"github.com/restls/restls/hints"
)

// bigScript is a script of about 1 MiB with one call per line.
func bigScript() string {
	line := "api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {});\n"
	return strings.Repeat(line, (DefaultMaxFileSize-1)/len(line))
}

// heapInUse returns the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestLinksReadOnce: one 1 MiB script and 100 links to it (symbolic and
// hard) are read once: the index holds one text whatever the number of
// paths, and the heap after the build grows by about one script, not
// one per link (it grew by over 200 MiB when each link was read).
func TestLinksReadOnce(t *testing.T) {
	root := t.TempDir()
	text := bigScript()
	target := filepath.Join(root, "big.js")
	if err := os.WriteFile(target, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	const links = 100
	if err := os.MkdirAll(filepath.Join(root, "l"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range links {
		p := filepath.Join(root, "l", fmt.Sprintf("link%03d.js", i))
		var err error
		if i%2 == 0 {
			err = os.Symlink(target, p)
		} else {
			err = os.Link(target, p)
		}
		if err != nil {
			t.Skipf("no links here: %v", err)
		}
	}
	before := heapInUse()
	ix, err := New(Options{Root: root, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	grew := int64(heapInUse()) - int64(before)
	n, _ := ix.Len()
	if n != links+1 {
		t.Errorf("%d scripts held, want %d (every link is a script)", n, links+1)
	}
	if got, one := ix.Bytes(), int64(len(text)); got < one || got > 8*one {
		t.Errorf("the index holds %d bytes, want one file's text and calls (%d bytes of text)", got, one)
	}
	o := ix.Occurrences("crm", false, config.Kinds)
	if got, want := o.Scripts(), links+1; got != want {
		t.Errorf("crm called in %d scripts, want %d", got, want)
	}
	// The text (1 MiB) and its call sites once, plus a Script per link.
	if limit := int64(24 << 20); grew > limit {
		t.Errorf("the heap grew by %d MiB after the build, want at most %d MiB", grew>>20, limit>>20)
	}
	t.Logf("heap after the build: +%.1f MiB for %d paths to one %d-byte script", float64(grew)/(1<<20), links+1, len(text))
	// A link updated, then the file itself: still one text.
	ix.Update(filepath.Join(root, "l", "link000.js"))
	if err := os.WriteFile(target, []byte(text+"// more\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix.Update(target)
	ix.Update(filepath.Join(root, "l", "link001.js"))
	if got := ix.Bytes(); got > 16*int64(len(text)) {
		t.Errorf("after updates the index holds %d bytes, want at most two texts", got)
	}
	runtime.KeepAlive(ix)
}

// TestMaxBytes: past MaxBytes the scripts are left out, named by
// LeftOut; a link to a file held costs nothing, and deleting a script
// makes room again at the next update.
func TestMaxBytes(t *testing.T) {
	root := project(t, map[string]string{
		"a.js": strings.Repeat("x", 600) + "\napi.rest.v1.get(\"crm\", {}, {});\n",
		"b.js": strings.Repeat("y", 600) + "\napi.rest.v1.get(\"crm\", {}, {});\n",
		"c.js": "api.rest.v1.get(\"crm\", {}, {});\n",
	})
	if err := os.Symlink(filepath.Join(root, "a.js"), filepath.Join(root, "a2.js")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	ix, err := New(Options{Root: root, MaxBytes: 1000 + 2*int64(unsafe.Sizeof(hints.CallSite{}))})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	n, _ := ix.Len()
	left, first := ix.LeftOut(10)
	if n != 3 || left != 1 || strings.Join(first, ",") != "b.js" {
		t.Fatalf("held %d, left out %d %v; want a.js, a2.js and c.js held, b.js left out", n, left, first)
	}
	if ix.Bytes() > 1000+2*int64(unsafe.Sizeof(hints.CallSite{})) {
		t.Errorf("holds %d bytes, over the budget", ix.Bytes())
	}
	if err := os.Remove(filepath.Join(root, "a.js")); err != nil {
		t.Fatal(err)
	}
	ix.Update(filepath.Join(root, "a.js"))
	ix.Update(filepath.Join(root, "a2.js"))
	ix.Update(filepath.Join(root, "b.js"))
	if left, _ := ix.LeftOut(10); left != 0 || ix.Script(filepath.Join(root, "b.js")) == nil {
		t.Errorf("after a.js was deleted: %d left out, b.js held %v", left, ix.Script(filepath.Join(root, "b.js")) != nil)
	}
}
