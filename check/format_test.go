package check

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGitHubEscaping: a message or path with the characters workflow
// commands give meaning to arrives as written.
func TestGitHubEscaping(t *testing.T) {
	rep := &Report{Scripts: 1, Findings: []Finding{{File: "a,b:c%.js", Line: 2, Column: 3, Severity: SeverityInfo,
		Code: "x", Message: "50% done\nnext line\r::error::not a command"}}}
	var b strings.Builder
	if err := Write(&b, rep, "github", "dev"); err != nil {
		t.Fatal(err)
	}
	want := "::notice file=a%2Cb%3Ac%25.js,line=2,col=3,title=x::50%25 done%0Anext line%0D::error::not a command [x]\n" +
		"1 script checked: 0 errors, 0 warnings, 1 note in 1 file\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestSARIFURI: paths become URI references: relative ones against the
// checkout's root, with spaces and non-ASCII escaped.
func TestSARIFURI(t *testing.T) {
	for in, want := range map[string]sarifArtifact{
		"scripts/a b/ü.js": {URI: "scripts/a%20b/%C3%BC.js", URIBaseID: "%SRCROOT%"},
		"./x.js":           {URI: "x.js", URIBaseID: "%SRCROOT%"},
		"/abs/p#1.js":      {URI: "file:///abs/p%231.js"},
	} {
		if got := sarifURI(in); got != want {
			t.Errorf("sarifURI(%q) = %+v, want %+v", in, got, want)
		}
	}
}
