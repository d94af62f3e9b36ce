package faults

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// The one wording of a report, for every surface that shows it as text:
// restls faults and restls test --faults print it, the designer's Faults
// tab and the editor's hover show the same lines.

// Detail is what happened in one finding, on one line: the note of a
// misread or unanswered verdict, what the script returned, or the error
// that left it with its line.
func (f Finding) Detail() string {
	if f.Note != "" {
		return f.Note
	}
	e := f.Error
	if e == nil {
		return "returned " + clipLine(string(f.Result), 60)
	}
	what := e.Name
	if e.Code != "" {
		what += " " + e.Code
	}
	if e.Status != nil {
		what += fmt.Sprintf(" %d", e.Status.Code)
	}
	if e.Line > 0 {
		what += fmt.Sprintf(" at line %d", e.Line)
	}
	return what + ": " + clipLine(e.Message, 100)
}

// Summary is the first line of a script's table: its call sites, runs,
// the count of each verdict, and how many fail.
func (r *Report) Summary(script string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, %s", script, plural(len(r.Sites), "call site", "call sites"), plural(r.Runs, "run", "runs"))
	for _, v := range Verdicts {
		if n := r.Count(v); n > 0 {
			fmt.Fprintf(&b, ", %d %s", n, v)
		}
	}
	if n := r.Failed(); n > 0 {
		fmt.Fprintf(&b, ": %d failing", n)
	}
	return b.String()
}

// WriteText writes the report as a table: the summary, then per call
// site its line and call, and a row per outcome with its verdict (marked
// FAIL when it fails the script) and what happened; the notes last.
// script names the script as the user named it; what a script or its
// services wrote is the caller's to escape for a terminal.
func WriteText(w io.Writer, script string, rep *Report) error {
	var b strings.Builder
	b.WriteString(rep.Summary(script))
	b.WriteByte('\n')
	for si, s := range rep.Sites {
		fmt.Fprintf(&b, "\n%s:%d %s %s path %q", script, s.Line, s.Method, s.ServiceID, strings.Join(s.PathParams, "/"))
		if s.Operation != "" {
			fmt.Fprintf(&b, " (%s)", s.Operation)
		}
		b.WriteByte('\n')
		for _, f := range rep.Findings {
			if f.Site != si {
				continue
			}
			mark := "    "
			if rep.Fails(f) {
				mark = "FAIL"
			}
			fmt.Fprintf(&b, "  %s %-18s %-10s %s\n", mark, f.Outcome, f.Verdict, f.Detail())
		}
	}
	for _, n := range rep.Notes {
		b.WriteString("\nnote: " + n + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// clipLine cuts s to its first line, and that to n bytes on a rune boundary.
func clipLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
