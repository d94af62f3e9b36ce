package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
)

// TestRunAnswersValues (issue 35): the designer's Dry Run answers the
// values the script's variables were last given, which the page writes
// beside their lines.
func TestRunAnswersValues(t *testing.T) {
	t.Parallel()
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) { o.Runner = eng.Run })
	res, body := post(t, hs.URL+"/v1/run", `{"text":"var n = 1;\nn += 2;\nreturn n;"}`, map[string]string{"Authorization": "Bearer " + s.key})
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/run = %d %s", res.StatusCode, body)
	}
	for _, want := range []string{`"name":"n","value":"1"`, `"line":2,"column":1,"name":"n","value":"3"`} {
		if !strings.Contains(body, want) {
			t.Errorf("answer %s lacks %s", body, want)
		}
	}
}
