package runtime

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"slices"
	"testing"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/restclient"
)

const benchCalls = 2000

// benchService serves one small JSON customer on loopback and returns the
// registry naming it "svc" and the plain URL of /customers/42.
func benchService(b *testing.B) (*config.Registry, string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":42,"name":"Ann","tags":["a","b"],"active":true}`)
	}))
	b.Cleanup(srv.Close)
	reg := config.NewRegistry(config.ScriptService, []config.Service{{ID: "svc", URL: srv.URL + "/customers"}}, config.DefaultTimeouts, nil)
	return reg, srv.URL + "/customers/42"
}

// plainGETs makes benchCalls GETs of url with net/http, reading and
// decoding each JSON body, and returns how long they took.
func plainGETs(b *testing.B, client *http.Client, url string) time.Duration {
	t0 := time.Now()
	for range benchCalls {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		var v any
		if err != nil || json.Unmarshal(body, &v) != nil {
			b.Fatal("plain read")
		}
	}
	return time.Since(t0)
}

// BenchmarkScriptVsPlainGET makes benchCalls sequential GETs to a loopback
// server twice per iteration: from a script through api.rest.v1, and from
// a plain net/http loop that also reads and decodes each JSON body. It
// reports both per-call times, their ratio (issue 34's target: at most
// 1.10; docs/runtime.md, "Performance"), the median of each iteration's
// own ratio (ratio-p50) and the ratio of the CPU time spent, loopback
// server included (cpu-ratio), which a shared machine disturbs less, and
// the allocations per call of each.
//
//	go test -run '^$' -bench ScriptVsPlainGET -benchtime 10x ./runtime/
func BenchmarkScriptVsPlainGET(b *testing.B) { scriptVsPlainGET(b, false) }

// BenchmarkScriptVsPlainGETTraced is BenchmarkScriptVsPlainGET with the
// client's Trace on, as restls run --json and -v have it: what recording
// each call's timing phases and header blocks costs.
func BenchmarkScriptVsPlainGETTraced(b *testing.B) { scriptVsPlainGET(b, true) }

func scriptVsPlainGET(b *testing.B, trace bool) {
	reg, url := benchService(b)
	client := restclient.New(restclient.Options{Trace: trace})
	src := `var n = 0;
for (var i = 0; i < 2000; i++) {
  var r = api.rest.v1.get("svc", {pathParams: ["42"]}, {});
  n += r.body.id === 42 ? 1 : 0;
}
return n;`
	plain := &http.Client{}

	var scriptTime, plainTime, scriptCPU, plainCPU time.Duration
	var scriptAllocs, plainAllocs uint64
	var ratios []float64
	cpuOK := true
	cpu := func() time.Duration {
		d, ok := processCPU()
		cpuOK = cpuOK && ok
		return d
	}
	var ms goruntime.MemStats
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		goruntime.ReadMemStats(&ms)
		a0, c0 := ms.Mallocs, cpu()
		pt := plainGETs(b, plain, url)
		plainTime += pt
		plainCPU += cpu() - c0
		goruntime.ReadMemStats(&ms)
		plainAllocs += ms.Mallocs - a0

		a0, c0, t0 := ms.Mallocs, cpu(), time.Now()
		res := Run(context.Background(), Options{Source: src, Registry: reg, Client: client})
		st := time.Since(t0)
		scriptTime += st
		scriptCPU += cpu() - c0
		goruntime.ReadMemStats(&ms)
		scriptAllocs += ms.Mallocs - a0
		if res.Error != nil || string(res.Result) != "2000" {
			b.Fatalf("script: %+v %s", res.Error, res.Result)
		}
		ratios = append(ratios, float64(st)/float64(pt))
	}
	calls := float64(b.N * benchCalls)
	b.ReportMetric(float64(scriptTime.Nanoseconds())/calls, "script-ns/call")
	b.ReportMetric(float64(plainTime.Nanoseconds())/calls, "plain-ns/call")
	b.ReportMetric(float64(scriptTime)/float64(plainTime), "ratio")
	// On a shared machine a neighbour's burst lands in one loop or the
	// other: the median of the iterations' own ratios (each pair measured
	// back to back) and the ratio of the CPU time both loops and the
	// loopback server spent move less than the ratio of the sums.
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "ratio-p50")
	if cpuOK && plainCPU > 0 {
		b.ReportMetric(float64(scriptCPU)/float64(plainCPU), "cpu-ratio")
	}
	b.ReportMetric(float64(scriptAllocs)/calls, "script-allocs/call")
	b.ReportMetric(float64(plainAllocs)/calls, "plain-allocs/call")
}

// BenchmarkClientVsPlainGET is BenchmarkScriptVsPlainGET without the
// script engine: the same GETs through a restclient Session (with a
// cancelable context, as a script run has) against the plain loop, to
// tell the client's share of the ratio from goja's.
//
//	go test -run '^$' -bench ClientVsPlainGET -benchtime 10x ./runtime/
func BenchmarkClientVsPlainGET(b *testing.B) {
	reg, url := benchService(b)
	client := restclient.New(restclient.Options{})
	plain := &http.Client{}
	var plainTime, clientTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		plainTime += plainGETs(b, plain, url)

		ctx, cancel := context.WithCancel(context.Background())
		t0 := time.Now()
		s := client.Session(reg)
		for range benchCalls {
			resp, _, err := s.Do(ctx, &restclient.Request{ServiceID: "svc", Method: http.MethodGet, PathParams: []string{"42"}})
			var v any
			if err != nil || json.Unmarshal(resp.Body, &v) != nil {
				b.Fatal("client read", err)
			}
		}
		s.Close()
		clientTime += time.Since(t0)
		cancel()
	}
	n := float64(b.N * benchCalls)
	b.ReportMetric(float64(clientTime.Nanoseconds())/n, "client-ns/call")
	b.ReportMetric(float64(plainTime.Nanoseconds())/n, "plain-ns/call")
	b.ReportMetric(float64(clientTime)/float64(plainTime), "ratio")
}
