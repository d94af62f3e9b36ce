package faults

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/restclient"
)

// BenchmarkExplore: one script with 3 call sites, the full outcome set
// (1 + 3 x 7 runs a op). Issue 36 asks 1,000 such scripts in under 10 s
// on the 2-core machine: 10 ms an op.
func BenchmarkExplore(b *testing.B) {
	snap, dir := crm(b)
	base, err := restclient.ParseMock("s.mock.yaml", []byte("- {serviceId: crm, body: {n: 1}}\n"))
	if err != nil {
		b.Fatal(err)
	}
	text := `var a, b, c;
try { a = api.rest.v1.get("crm", {pathParams: ["a"]}, {}).body.n; } catch (e) { a = 0; }
try { b = api.rest.v1.get("crm", {pathParams: ["b"]}, {}).body.n; } catch (e) { if (e.status && e.status.code === 404) b = null; else throw e; }
c = api.rest.v1.post("crm", {pathParams: ["c"]}, {}, {a: a, b: b}).body;
return [a, b, c];`
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	req := engine.Request{Path: filepath.Join(dir, "s.js"), Text: text}
	b.ReportAllocs()
	for b.Loop() {
		rep, err := Explore(context.Background(), eng.Run, snap, req, base, Options{})
		if err != nil || rep.Runs != 21 {
			b.Fatalf("%v, %+v", err, rep)
		}
	}
}
