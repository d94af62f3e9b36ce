package hints

import (
	"strings"
	"testing"

	"github.com/restls/restls/config"
)

func TestHover(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		nilReg  bool
		covers  string   // the text Range covers; "" = no hover
		want    []string // substrings of the Markdown
		without []string
	}{
		{name: "call", src: `var r = api.rest.v1.g|et("crm", {}, {})`, covers: "get",
			want: []string{"api.rest.v1.get(serviceId, path, header, timeouts?)", "HTTP GET", "- `path`"}},
		{name: "call at end of name", src: `api.rest.v1.patch|(`, covers: "patch", nilReg: true, want: []string{"PATCH"}},
		{name: "namespace", src: `api.rest.v|1.put(`, covers: "v1", want: []string{"script REST client"}},
		{name: "not a call", src: `foo.g|et()`},
		{name: "oauth service", src: `api.rest.v1.get("h|r", {}, {})`, covers: "hr",
			want:    []string{"https://hr.example.com/rest", "Human resources", "oAuth client_credentials", "script-service-api.xml:10"},
			without: []string{"hr-Cl1ent-S3cret", "S3cret"}},
		{name: "basic service", src: `api.rest.v1.get('registry|', {}, {})`, covers: "registry",
			want:    []string{"Authorization: basic", "Business registry"},
			without: []string{"cmVnaXN0cnktdXNlcjpyM2c1dHJ5LXA0c3M=", "r3g5try-p4ss"}},
		{name: "on the opening quote", src: `api.rest.v1.get(|"crm", {}, {})`, covers: "crm", want: []string{"https://crm.example.com/api/v2"}},
		{name: "unknown service", src: `api.rest.v1.get("crn|")`, covers: "crn", want: []string{"`crn` is not configured for scriptService scripts"}},
		{name: "unusable service", src: `api.rest.v1.get("bro|ken")`, covers: "broken",
			want: []string{"unusable", "script-service-api.xml:15", "ftp"}},
		{name: "service nil registry", src: `api.rest.v1.get("crm|")`, nilReg: true},
		{name: "non-ASCII service", src: `var ü = 1; api.rest.v1.get("wetter-zü|rich")`, covers: "wetter-zürich",
			want: []string{"Wetter für Zürich"}},
		{name: "timeout key", src: `api.rest.v1.get("crm", {}, {}, {read|Timeout: 1})`, covers: "readTimeout",
			want: []string{"maximum 20000 ms", "Default 10000 ms"}},
		{name: "quoted timeout key", src: `api.rest.v1.post("crm", {}, {}, {}, {"connection|Timeout": 1})`,
			covers: "connectionTimeout", nilReg: true, want: []string{"maximum 10000 ms"}},
		{name: "path key", src: `api.rest.v1.get("crm", {query|Params: {}}, {})`, covers: "queryParams", want: []string{"always strings"}},
		{name: "timeout value", src: `api.rest.v1.get("crm", {}, {}, {readTimeout: 1|0})`},
		{name: "comment", src: `// api.rest.v1.g|et("crm")`},
		{name: "half-typed", src: "var x = api.rest.v1.get(\"h|r\", {\n", covers: "hr", want: []string{"oAuth"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, off := cursor(t, tc.src)
			var reg *config.Registry
			if !tc.nilReg {
				reg = testRegistry(t)
			}
			h, ok := HoverAt(NewDocument(text), off, reg)
			if tc.covers == "" {
				if ok {
					t.Fatalf("hover %q, want none", h.Markdown)
				}
				return
			}
			if !ok {
				t.Fatal("no hover")
			}
			if got := text[h.Range.Start:h.Range.End]; got != tc.covers {
				t.Errorf("range covers %q, want %q", got, tc.covers)
			}
			for _, w := range tc.want {
				if !strings.Contains(h.Markdown, w) {
					t.Errorf("hover lacks %q:\n%s", w, h.Markdown)
				}
			}
			for _, w := range tc.without {
				if strings.Contains(h.Markdown, w) {
					t.Errorf("hover holds %q:\n%s", w, h.Markdown)
				}
			}
		})
	}
}
