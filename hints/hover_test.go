package hints

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/internal/goldentest"
)

// TestHover checks where each hover appears and what it covers; its
// Markdown is compared with testdata/golden/hover/<name>.md (-update
// rewrites them, see internal/goldentest).
func TestHover(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		nilReg  bool
		covers  string   // the text Range covers; "" = no hover
		without []string // credentials that must never appear
	}{
		{name: "call", src: `var r = api.rest.v1.g|et("crm", {}, {})`, covers: "get"},
		{name: "call at end of name", src: `api.rest.v1.patch|(`, covers: "patch", nilReg: true},
		{name: "namespace", src: `api.rest.v|1.put(`, covers: "v1"},
		{name: "not a call", src: `foo.g|et()`},
		{name: "oauth service", src: `api.rest.v1.get("h|r", {}, {})`, covers: "hr",
			without: []string{"hr-Cl1ent-S3cret", "S3cret"}},
		{name: "basic service", src: `api.rest.v1.get('registry|', {}, {})`, covers: "registry",
			without: []string{"cmVnaXN0cnktdXNlcjpyM2c1dHJ5LXA0c3M=", "r3g5try-p4ss"}},
		{name: "reference service", src: `api.rest.v1.get("crm-ord|ers", {}, {})`, covers: "crm-orders"},
		{name: "on the opening quote", src: `api.rest.v1.get(|"crm", {}, {})`, covers: "crm"},
		{name: "unknown service", src: `api.rest.v1.get("crn|")`, covers: "crn"},
		{name: "unusable service", src: `api.rest.v1.get("bro|ken")`, covers: "broken"},
		{name: "service nil registry", src: `api.rest.v1.get("crm|")`, nilReg: true},
		{name: "non-ASCII service", src: `var ü = 1; api.rest.v1.get("wetter-zü|rich")`, covers: "wetter-zürich"},
		{name: "timeout key", src: `api.rest.v1.get("crm", {}, {}, {read|Timeout: 1})`, covers: "readTimeout"},
		{name: "quoted timeout key", src: `api.rest.v1.post("crm", {}, {}, {}, {"connection|Timeout": 1})`,
			covers: "connectionTimeout", nilReg: true},
		{name: "path key", src: `api.rest.v1.get("crm", {query|Params: {}}, {})`, covers: "queryParams"},
		{name: "pathParams key", src: `api.rest.v1.get("crm", {"path|Params": []}, {})`, covers: "pathParams"},
		{name: "timeout value", src: `api.rest.v1.get("crm", {}, {}, {readTimeout: 1|0})`},
		{name: "comment", src: `// api.rest.v1.g|et("crm")`},
		{name: "half-typed", src: "var x = api.rest.v1.get(\"h|r\", {\n", covers: "hr"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, off := cursor(t, tc.src)
			var reg *config.Registry
			if !tc.nilReg {
				reg = testRegistry(t)
			}
			h, ok := HoverAt(NewDocument(text), off, reg, Display{})
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
			goldentest.Check(t, goldenPath("hover", tc.name), stableMarkdown(t, h.Markdown))
			for _, w := range tc.without {
				if strings.Contains(h.Markdown, w) {
					t.Errorf("hover holds %q:\n%s", w, h.Markdown)
				}
			}
		})
	}
}

// goldenPath is testdata/golden/<area>/<name>.md with the test name's
// spaces as dashes.
func goldenPath(area, name string) string {
	return filepath.Join("testdata", "golden", area, strings.ReplaceAll(name, " ", "-")+".md")
}

// stableMarkdown replaces the package directory, which differs between
// checkouts, with $DIR.
func stableMarkdown(t testing.TB, md string) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(md, dir, "$DIR")
}
