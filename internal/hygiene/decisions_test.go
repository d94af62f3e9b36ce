package hygiene_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/restls/restls/internal/restlstest"
)

// decisionsCite is a citation of docs/decisions.md by a quoted name, in
// the forms the code and the docs write: `docs/decisions.md, "YAML
// budget"`, `decisions.md ("Debugging")`, `docs/decisions.md "One run
// engine"`, `[decisions.md](decisions.md), "Glob matching"` and `"serve's
// memory limit" in docs/decisions.md`; and a capitalised name without
// quotes, `docs/decisions.md, Registry;` or `docs/decisions.md (Tests)`.
// It runs on text whose line breaks (and the comment markers after them)
// are spaces, so a name may span lines.
var decisionsCite = regexp.MustCompile(`decisions\.md` + "`?" + `\)?[,:]?\s*\(?"([^"]{1,200})"|"([^"]{1,200})"\s+in\s+\[?(?:docs/)?decisions\.md|decisions\.md(?:,\s*|\s+\()([A-Z][A-Za-z ]{0,40})[;)]`)

// decisionsAnchor is a link into docs/decisions.md by anchor.
var decisionsAnchor = regexp.MustCompile(`decisions\.md#([A-Za-z0-9_-]+)`)

// lineBreak is a line break with the indentation and comment marker that
// continue a sentence on the next line.
var lineBreak = regexp.MustCompile(`\n[ \t]*(?:(?://+|#+|\*+|>)[ \t]*)?`)

// decisionsIndex is what a citation may name: the headings of
// docs/decisions.md and the bold leads of its entries.
type decisionsIndex struct {
	headings []string // lower case, without backticks
	leads    []string
	anchors  map[string]bool
}

func readDecisions(text string) decisionsIndex {
	idx := decisionsIndex{anchors: map[string]bool{}}
	seen := map[string]int{}
	for _, line := range strings.Split(text, "\n") {
		if h := strings.TrimLeft(line, "#"); len(h) < len(line) && strings.HasPrefix(h, " ") {
			h = strings.TrimSpace(h)
			idx.headings = append(idx.headings, citeKey(h))
			idx.anchors[headingAnchor(h, seen)] = true
		}
	}
	// An entry's lead is the bold text it starts with, which may span
	// its first lines (continued with an indent).
	joined := regexp.MustCompile(`\n[ \t]+`).ReplaceAllString(text, " ")
	for _, m := range regexp.MustCompile(`(?m)^- \*\*(.+?)\*\*`).FindAllStringSubmatch(joined, -1) {
		idx.leads = append(idx.leads, citeKey(m[1]))
	}
	return idx
}

// headingAnchor is GitHub's anchor of a heading: lower case, letters,
// digits, spaces, hyphens and underscores kept, spaces made hyphens, a
// repeated anchor numbered.
func headingAnchor(h string, seen map[string]int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	a := b.String()
	n := seen[a]
	seen[a] = n + 1
	if n > 0 {
		return fmt.Sprintf("%s-%d", a, n)
	}
	return a
}

// citeKey is how a name is compared: lower case, code spans' backticks
// dropped, spaces collapsed.
func citeKey(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.ReplaceAll(s, "`", ""))), " ")
}

// names reports whether a cited name is a heading (its start) or within
// an entry's bold lead; "..." in the name stands for any text.
func (idx decisionsIndex) names(name string) bool {
	parts := strings.Split(strings.ReplaceAll(citeKey(name), "…", "..."), "...")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	inOrder := func(s string, anchored bool) bool {
		for i, p := range parts {
			j := strings.Index(s, p)
			if j < 0 || (anchored && i == 0 && j != 0) {
				return false
			}
			s = s[j+len(p):]
		}
		return true
	}
	for _, h := range idx.headings {
		if inOrder(h, true) {
			return true
		}
	}
	for _, l := range idx.leads {
		if inOrder(l, false) {
			return true
		}
	}
	return false
}

// decisionsCitations lists the names and anchors a file's text cites.
func decisionsCitations(text string) (names, anchors []string) {
	flat := lineBreak.ReplaceAllString(text, " ")
	for _, m := range decisionsCite.FindAllStringSubmatch(flat, -1) {
		names = append(names, strings.Join(strings.Fields(m[1]+m[2]+m[3]), " "))
	}
	for _, m := range decisionsAnchor.FindAllStringSubmatch(flat, -1) {
		anchors = append(anchors, m[1])
	}
	return names, anchors
}

// TestDecisionsCitations: every place that cites docs/decisions.md by a
// quoted name (code comments, docs, scripts, the file itself) names one
// of its headings or an entry's bold lead, and every link into it by
// anchor, its table of contents included, reaches a heading. The file is
// ordered by topic and its sections move; a citation must move with them.
func TestDecisionsCitations(t *testing.T) {
	t.Parallel()
	root := restlstest.Root(t)
	text, err := os.ReadFile(filepath.Join(root, "docs", "decisions.md"))
	if err != nil {
		t.Fatal(err)
	}
	idx := readDecisions(string(text))
	if len(idx.headings) < 20 || len(idx.leads) < 100 {
		t.Fatalf("docs/decisions.md: %d headings, %d bold leads: the reader lost its shape", len(idx.headings), len(idx.leads))
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-co", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	cited, linked := 0, 0
	for _, name := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if name == "internal/hygiene/decisions_test.go" {
			continue // the patterns and their examples
		}
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil || bytes.IndexByte(data, 0) >= 0 || !bytes.Contains(data, []byte("decisions.md")) && name != "docs/decisions.md" {
			continue // deleted in the work tree, binary, or citing nothing
		}
		names, anchors := decisionsCitations(string(data))
		if name == "docs/decisions.md" {
			for _, m := range regexp.MustCompile(`\]\(#([^)\s]+)\)`).FindAllStringSubmatch(string(data), -1) {
				anchors = append(anchors, m[1])
			}
		}
		for _, n := range names {
			cited++
			if !idx.names(n) {
				t.Errorf("%s cites docs/decisions.md, %q, which is no heading and no entry's bold lead there: name the section as its heading starts", name, n)
			}
		}
		for _, a := range anchors {
			linked++
			if !idx.anchors[a] {
				t.Errorf("%s links to docs/decisions.md#%s, which no heading there makes", name, a)
			}
		}
	}
	if cited < 20 || linked < 20 {
		t.Fatalf("found %d citations of docs/decisions.md by name and %d links by anchor: the patterns lost them", cited, linked)
	}
	t.Logf("%d citations of docs/decisions.md by name, %d links by anchor", cited, linked)
}

// TestDecisionsCitationForms pins the forms the citation pattern reads
// and that a name no heading or lead holds is refused.
func TestDecisionsCitationForms(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		`// observer (docs/decisions.md, "Debugging").`:                              "Debugging",
		"// See docs/decisions.md (\"OpenAPI descriptions\n// (issue 23)\").":        "OpenAPI descriptions (issue 23)",
		"(`docs/decisions.md`, \"Answer\ntypes\"); it is made":                       "Answer types",
		`([decisions.md](decisions.md), "Glob matching") |`:                          "Glob matching",
		`see "serve's memory limit" in [decisions.md](decisions.md)).`:               "serve's memory limit",
		`// of the pass (docs/decisions.md, "restls check against oxlint").`:         "restls check against oxlint",
		"# (10x; docs/decisions.md, \"The fuzz smoke\"), FUZZ":                       "The fuzz smoke",
		"// (view.ts, docs/decisions.md \"One preview\n// component\"): src/":        "One preview component",
		"the size\n    (docs/decisions.md, \"Path-segment candidates ... kept on\")": "Path-segment candidates ... kept on",
		"(docs/decisions.md, Registry; BenchmarkStageXML)":                           "Registry",
		"# by hand (docs/decisions.md, Tests). FUZZ":                                 "Tests",
		"// docs/decisions.md (Registry), measured":                                  "Registry",
	} {
		names, _ := decisionsCitations(text)
		if len(names) != 1 || names[0] != want {
			t.Errorf("in %q the pattern finds %q, want %q", text, names, want)
		}
	}
	for _, text := range []string{`see docs/decisions.md. "Quoted" text`, `"a" and "b" in docs/http.md`, `(docs/decisions.md, measured with X)`, `docs/decisions.md says what lives where.`} {
		if names, _ := decisionsCitations(text); len(names) != 0 {
			t.Errorf("in %q the pattern finds %q, want none", text, names)
		}
	}
	idx := readDecisions("# D\n\n## Chapter\n\n### YAML budget (issue 23)\n\n- **A lead that goes\n  on.** Text.\n- **Short.**\n")
	for name, want := range map[string]bool{
		"YAML budget": true, "yaml budget (issue 23)": true, "Chapter": true, "lead that goes on": true, "A lead ... on": true, "Short": true,
		"budget": false, "YAML budgets": false, "No such section": false, "Text": false,
	} {
		if got := idx.names(name); got != want {
			t.Errorf("names(%q) = %v, want %v", name, got, want)
		}
	}
	if !idx.anchors["yaml-budget-issue-23"] || !idx.anchors["chapter"] {
		t.Errorf("anchors %v lack the headings'", idx.anchors)
	}
}
