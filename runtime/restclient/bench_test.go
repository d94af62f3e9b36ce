package restclient

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/restls/restls/config"
)

// BenchmarkClientVsPlainGET makes 2,000 sequential GETs to a loopback
// server twice per iteration, through a Session and through a plain
// net/http loop, both decoding each JSON body, and reports the ratio: the
// client's share of runtime's BenchmarkScriptVsPlainGET, without the
// script engine.
//
//	go test -run '^$' -bench ClientVsPlainGET -benchtime 10x ./runtime/restclient/
func BenchmarkClientVsPlainGET(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":42,"name":"Ann","tags":["a","b"],"active":true}`)
	}))
	defer srv.Close()
	reg := config.NewRegistry(config.ScriptService, []config.Service{{ID: "svc", URL: srv.URL + "/customers"}}, config.DefaultTimeouts, nil)
	client := New(Options{})
	plain := &http.Client{}
	url := srv.URL + "/customers/42"
	const calls = 2000
	var plainTime, clientTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		for j := 0; j < calls; j++ {
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
			req.Header.Set("Accept", "application/json")
			resp, err := plain.Do(req)
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
		plainTime += time.Since(t0)

		ctx, cancel := context.WithCancel(context.Background()) // as a script run's
		t0 = time.Now()
		s := client.Session(reg)
		for j := 0; j < calls; j++ {
			resp, _, err := s.Do(ctx, &Request{ServiceID: "svc", Method: http.MethodGet, PathParams: []string{"42"}})
			var v any
			if err != nil || json.Unmarshal(resp.Body, &v) != nil {
				b.Fatal("client read", err)
			}
		}
		s.Close()
		clientTime += time.Since(t0)
		cancel()
	}
	n := float64(b.N * calls)
	b.ReportMetric(float64(clientTime.Nanoseconds())/n, "client-ns/call")
	b.ReportMetric(float64(plainTime.Nanoseconds())/n, "plain-ns/call")
	b.ReportMetric(float64(clientTime)/float64(plainTime), "ratio")
}
