package check

import "strings"

// Rule describes one diagnostic code, for SARIF's rules.
type Rule struct {
	Code string
	// Severity is the code's usual severity (error, warning, info).
	Severity string
	// Markdown is the meaning and what to do, as docs/diagnostics.md says.
	Markdown string
}

// HelpBase is where each code's documentation lives; the code is the
// anchor.
const HelpBase = "https://github.com/restls/restls/blob/main/docs/diagnostics.md"

// HelpURI is the documentation of code.
func HelpURI(code string) string { return HelpBase + "#" + code }

// Text is the rule's description without Markdown.
func (r Rule) Text() string { return strings.ReplaceAll(r.Markdown, "`", "") }

// RuleFor returns the rule of code; a code the table does not know (a
// newer one) gets a rule naming only its help page.
func RuleFor(code string) Rule {
	for _, r := range rules {
		if r.Code == code {
			return r
		}
	}
	return Rule{Code: code, Severity: SeverityWarning, Markdown: "see docs/diagnostics.md"}
}
