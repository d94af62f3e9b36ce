package web_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/internal/walktest"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/scripttest"
	"github.com/restls/restls/web"
)

// TestDesignerTestsAreRestlsTests: the test files the designer runs
// (GET /v1/test/scripts, from the session's project index) are the ones
// restls test runs (scripttest.Find's walk) on the same project: the
// directories every project walk leaves out (input.SkipDir) are left out
// by both.
func TestDesignerTestsAreRestlsTests(t *testing.T) {
	t.Parallel()
	st := walktest.SkipRule(t, "a"+scripttest.Suffix, "script: a.js\nresult: 1\n")
	found, err := scripttest.Find([]string{st.Root})
	if err != nil {
		t.Fatal(err)
	}
	want := walktest.Rel(t, st.Root, found)
	if !slices.Equal(want, st.Kept) {
		t.Fatalf("restls test finds %q, want %q", want, st.Kept)
	}

	log := zaptest.NewLogger(t)
	const key = "designer-test-key"
	s, err := web.New(web.Options{LSP: lsp.NewServer(lsp.Options{Sources: config.Sources{ConfigRoot: "../testdata/config"}, Logger: log.Named("lsp"), PollInterval: -1}),
		Logger: log.Named("web"), Token: key, TestRoot: st.Root, Runner: engine.New(engine.Options{Isolation: engine.InProcess}).Run})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); hs.Close() })
	req, _ := http.NewRequest(http.MethodGet, hs.URL+"/v1/test/scripts", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var got struct {
		Scripts []struct {
			Script string   `json:"script"`
			Files  []string `json:"files"`
		} `json:"scripts"`
	}
	if err := json.NewDecoder(res.Body).Decode(&got); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/test/scripts = %d, %v", res.StatusCode, err)
	}
	var files []string
	for _, s := range got.Scripts {
		files = append(files, s.Files...)
	}
	slices.Sort(files)
	if !slices.Equal(files, want) {
		t.Errorf("the designer's test files %q, restls test's %q", files, want)
	}
}
