package hints

import (
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/internal/goldentest"
)

// Configured text reaches the hover as text: no link, image, HTML or code
// span can come out of a description, a url or a file name. The golden
// file shows each escaped.
func TestServiceDocEscapesConfiguredText(t *testing.T) {
	reg := config.NewRegistry(config.ScriptService, []config.Service{{
		ID:          "odd`id",
		URL:         "https://a.example.com/x`y",
		Description: "see [docs](https://evil.example) ![x](https://t.example/p.png) <img src=x> `rm` *b* \\",
		Defined:     config.Position{File: "/etc/``/s.xml", Line: 3},
	}}, config.DefaultTimeouts, nil)
	h := serviceHover(reg, "odd`id", Range{}, Display{})
	if h == nil {
		t.Fatal("no hover")
	}
	goldentest.Check(t, goldenPath("hover", "escaped configured text"), h.Markdown)
}

func TestCode(t *testing.T) {
	for in, want := range map[string]string{
		"crm":   "`crm`",
		"a`b":   "``a`b``",
		"`x":    "`` `x ``",
		"x``":   "``` x`` ```",
		"a``b`": "``` a``b` ```",
		"":      "``",
	} {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %q, want %q", in, got, want)
		}
	}
	// Parts make one span: a run of backticks across them, even across
	// an empty part, sets the fence.
	var b strings.Builder
	writeCode(&b, "a`", "", "`b")
	if got, want := b.String(), "```a``b```"; got != want {
		t.Errorf("writeCode across parts = %q, want %q", got, want)
	}
}
