package hints

import (
	"strings"
	"sync"
	"testing"

	"github.com/restls/restls/config"
)

// cursor removes the cursor marker '|' from src and returns the text and
// the marker's byte offset. Test sources must hold exactly one '|'.
func cursor(t testing.TB, src string) (string, int) {
	t.Helper()
	i := strings.IndexByte(src, '|')
	if i < 0 || strings.Count(src, "|") != 1 {
		t.Fatalf("source must hold exactly one cursor marker '|': %q", src)
	}
	return src[:i] + src[i+1:], i
}

var (
	loadOnce sync.Once
	loaded   *config.Registry
)

// testRegistry is the scriptService registry of testdata: crm, crm-orders
// (a reference), registry (basic), hr (oAuth client_credentials), broken
// (unusable), wetter-zürich; timeouts connection 2000/5000, read
// 10000/20000.
func testRegistry(t testing.TB) *config.Registry {
	t.Helper()
	loadOnce.Do(func() {
		snap := config.Load(config.Sources{
			ServiceXML:     "testdata/script-service-api.xml",
			HandlerXML:     "testdata/none.xml",
			PlatformConfig: "testdata/config.xml",
		})
		loaded = snap.For(config.ScriptService)
	})
	if loaded == nil || loaded.Len() == 0 {
		t.Fatal("test registry did not load")
	}
	return loaded
}

func labels(items []CompletionItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Label
	}
	return out
}
