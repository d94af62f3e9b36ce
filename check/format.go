package check

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/restls/restls/input"
)

// Formats are the output formats of Write, the first the default.
var Formats = []string{"text", "json", "sarif", "github"}

// Write writes rep to w in format (one of Formats); version names restls
// in SARIF's tool.
func Write(w io.Writer, rep *Report, format, version string) error {
	switch format {
	case "text":
		return writeText(w, rep)
	case "json":
		return writeJSON(w, rep)
	case "sarif":
		return writeSARIF(w, rep, version)
	case "github":
		return writeGitHub(w, rep)
	}
	return fmt.Errorf("unknown format %q: use one of %s", format, strings.Join(Formats, ", "))
}

// writeText writes file:line:col: severity: message [code], a blank line
// between files, then the summary.
func writeText(w io.Writer, rep *Report) error {
	var b strings.Builder
	for i, f := range rep.Findings {
		if i > 0 && rep.Findings[i-1].File != f.File {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s: %s: %s [%s]\n", location(f), f.Severity, input.Printable(f.Message), f.Code)
	}
	if len(rep.Findings) > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(Summary(rep))
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// location is where f is, for a terminal: a file name is the
// repository's to choose, control characters included.
func location(f Finding) string {
	if f.Line == 0 {
		return input.Printable(f.File)
	}
	return fmt.Sprintf("%s:%d:%d", input.Printable(f.File), f.Line, f.Column)
}

// Summary is the one line that ends the text output: how many scripts
// were checked and how many problems of each severity were found in how
// many files.
func Summary(rep *Report) string {
	scripts := plural(rep.Scripts, "script")
	if len(rep.Findings) == 0 {
		return scripts + " checked: no problems"
	}
	files := map[string]bool{}
	for _, f := range rep.Findings {
		files[f.File] = true
	}
	parts := []string{plural(rep.Count(SeverityError), "error"), plural(rep.Count(SeverityWarning), "warning")}
	if n := rep.Count(SeverityInfo) + rep.Count(SeverityHint); n > 0 {
		parts = append(parts, plural(n, "note"))
	}
	return fmt.Sprintf("%s checked: %s in %s", scripts, strings.Join(parts, ", "), plural(len(files), "file"))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

type jsonReport struct {
	*Report
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

func writeJSON(w io.Writer, rep *Report) error {
	r := *rep
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jsonReport{Report: &r, Errors: rep.Count(SeverityError), Warnings: rep.Count(SeverityWarning)})
}

// writeGitHub writes one workflow command per finding, which GitHub
// Actions shows as an annotation on the file and line, then the summary.
func writeGitHub(w io.Writer, rep *Report) error {
	var b strings.Builder
	for _, f := range rep.Findings {
		cmd := "notice"
		switch f.Severity {
		case SeverityError:
			cmd = "error"
		case SeverityWarning:
			cmd = "warning"
		}
		// Escaped too: the Actions log is a terminal that acts on ANSI
		// sequences.
		props := []string{"file=" + ghProperty(input.Printable(filepath.ToSlash(f.File)))}
		if f.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", f.Line), fmt.Sprintf("col=%d", f.Column))
			if f.EndLine > 0 {
				props = append(props, fmt.Sprintf("endLine=%d", f.EndLine))
				if f.EndLine == f.Line {
					props = append(props, fmt.Sprintf("endColumn=%d", f.EndColumn))
				}
			}
		}
		props = append(props, "title="+ghProperty(f.Code))
		fmt.Fprintf(&b, "::%s %s::%s\n", cmd, strings.Join(props, ","), ghData(ghText(f.Message)+" ["+f.Code+"]"))
	}
	b.WriteString(Summary(rep))
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// ghText is a message with its control characters escaped, but line
// ends, which ghData encodes and GitHub shows as line breaks.
func ghText(s string) string {
	parts := strings.Split(s, "\r")
	for i, p := range parts {
		parts[i] = input.PrintableLines(p)
	}
	return strings.Join(parts, "\r")
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
