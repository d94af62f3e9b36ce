package config

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// writeLargeConfig writes n services, half in YAML properties and half in
// the service XML, with references and OAuth, below dir.
func writeLargeConfig(tb testing.TB, dir string, n int) {
	tb.Helper()
	var y strings.Builder
	y.WriteString("scriptservice:\n  api:\n")
	for i := 0; i < n/2; i++ {
		if i%10 == 5 {
			fmt.Fprintf(&y, "    - serviceId: p%d\n      url: p%d/sub/%d\n      description: Reference %d\n", i, i-5, i, i)
			continue
		}
		fmt.Fprintf(&y, "    - serviceId: p%d\n      url: https://p%d.example.com/api\n      description: Properties service %d\n", i, i, i)
		if i%3 == 0 {
			y.WriteString("      authorization:\n        type: basic\n        encodedCredentials: dXNlcjpwYXNz\n")
		}
	}
	y.WriteString("  oAuth:\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&y, "    - id: po%d\n      url: https://auth.example.com/t\n      grantType: client_credentials\n      clientAuthenticationMethod: client_secret_post\n      clientId: c\n      clientSecret: s\n      additionalParams:\n        scope: a\n", i)
	}
	var x strings.Builder
	x.WriteString("<?xml version=\"1.0\"?>\n<scriptservice>\n")
	for i := 0; i < n/2; i++ {
		switch {
		case i%10 == 5:
			fmt.Fprintf(&x, "  <api serviceId=\"x%d\" url=\"p%d/from-xml\" description=\"Reference to properties\"/>\n", i, i-5)
		case i%4 == 0:
			fmt.Fprintf(&x, "  <api serviceId=\"x%d\" url=\"https://x%d.example.com/api\" description=\"OAuth service %d\">\n    <authorization type=\"oAuth\"><id>xo%d</id></authorization>\n  </api>\n", i, i, i, i%50)
		default:
			fmt.Fprintf(&x, "  <api serviceId=\"x%d\" url=\"https://x%d.example.com/api\" description=\"XML service %d\"/>\n", i, i, i)
		}
	}
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&x, "  <oAuth id=\"xo%d\" url=\"https://auth.example.com/t\" grantType=\"password\" clientAuthenticationMethod=\"client_secret_basic\" clientId=\"c\" clientSecret=\"s\" username=\"u\" password=\"p\">\n    <additionalParams><scope>x</scope></additionalParams>\n  </oAuth>\n", i)
	}
	x.WriteString("</scriptservice>\n")
	must := func(err error) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "script-code-config"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "application.yml"), []byte(y.String()), 0o644))
	must(os.WriteFile(filepath.Join(dir, ServiceXMLPath), []byte(x.String()), 0o644))
}

func TestLargeConfigLoadsClean(t *testing.T) {
	dir := t.TempDir()
	writeLargeConfig(t, dir, 10000)
	r := Load(Sources{ConfigRoot: dir}).For(ScriptService)
	if r.Len() != 10000 {
		t.Fatalf("loaded %d services, want 10000", r.Len())
	}
	// Clean but for the informations on the references to services with
	// credentials (service-reference-no-auth), which it has on purpose.
	var unclean []Diagnostic
	for _, d := range r.Diagnostics {
		if d.Code != CodeReferenceNoAuth {
			unclean = append(unclean, d)
		}
	}
	if len(unclean) != 0 {
		t.Fatalf("generated config must be clean:\n%s", dump(unclean[:min(5, len(unclean))]))
	}
	if s, _ := r.Service("x15"); s.URL != "https://p10.example.com/api/from-xml" {
		t.Errorf("x15 = %+v", s)
	}
}

// BenchmarkLoad loads 10,000 services (half properties, half XML, with
// references and OAuth) from disk, all three kinds.
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	writeLargeConfig(b, dir, 10000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		snap := Load(Sources{ConfigRoot: dir})
		if snap.For(ScriptService).Len() != 10000 {
			b.Fatal("wrong count")
		}
	}
}

// BenchmarkNearest looks up a misspelt id among 10,000 serviceIds, as the
// hint engine does for each unknown id in a script.
func BenchmarkNearest(b *testing.B) {
	ids := make([]string, 10000)
	for i := range ids {
		ids[i] = fmt.Sprintf("service-%d", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		if got := Nearest("servce-4242", ids, 3); len(got) == 0 || got[0] != "service-4242" {
			b.Fatalf("got %v", got)
		}
	}
}

// writeLargeYAML writes an application.yml of about size bytes below dir
// (plain block YAML, a third of the services with basic authorization)
// and returns how many services it holds.
func writeLargeYAML(tb testing.TB, dir string, size int) int {
	tb.Helper()
	var y strings.Builder
	y.Grow(size + 512)
	y.WriteString("scriptservice:\n  api:\n")
	n := 0
	for ; y.Len() < size; n++ {
		fmt.Fprintf(&y, "    - serviceId: svc%d\n      url: https://svc%d.example.com/api/v1\n      description: Service number %d of the large test configuration\n", n, n, n)
		if n%3 == 0 {
			y.WriteString("      authorization:\n        type: basic\n        encodedCredentials: dXNlcjpwYXNz\n")
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "application.yml"), []byte(y.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return n
}

// BenchmarkLoadLargeYAML loads a 15 MB application.yml, just under
// the 16 MiB limit (input.Config). Besides time and allocations it reports the live heap
// after the load (the snapshot a server keeps) in heap-MB; the peak
// resident size of a whole `restls services` on such a file is quoted in
// docs/configuration.md.
func BenchmarkLoadLargeYAML(b *testing.B) {
	dir := b.TempDir()
	n := writeLargeYAML(b, dir, 15_000_000)
	b.ReportAllocs()
	b.SetBytes(15_000_000)
	var snap *Snapshot
	for b.Loop() {
		snap = Load(Sources{ConfigRoot: dir})
		if got := snap.For(ScriptService).Len(); got != n {
			b.Fatalf("loaded %d services, want %d", got, n)
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/1e6, "heap-MB")
	runtime.KeepAlive(snap)
}
