package hints

import (
	"sync"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/internal/cursortest"
)

// cursor splits "ab|c" into the text without "|" and the byte offset of "|".
var cursor = cursortest.Split

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
