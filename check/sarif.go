package check

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SARIF 2.1.0, the subset restls writes: one run, a rule per code found,
// a result per finding.

const sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool     `json:"tool"`
	ColumnKind string        `json:"columnKind"`
	Results    []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	ShortDescription     sarifText    `json:"shortDescription"`
	FullDescription      sarifText    `json:"fullDescription"`
	HelpURI              string       `json:"helpUri"`
	Help                 sarifText    `json:"help"`
	DefaultConfiguration sarifDefault `json:"defaultConfiguration"`
}

type sarifDefault struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

func sarifLevel(sev string) string {
	switch sev {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	}
	return "note"
}

// sarifURI is a file's path as a URI reference: relative paths against
// the checkout's root (%SRCROOT%, what code scanning resolves), absolute
// ones as file URIs.
func sarifURI(file string) sarifArtifact {
	segs := strings.Split(filepath.ToSlash(file), "/")
	for i, seg := range segs {
		segs[i] = pathEscape(seg)
	}
	esc := strings.Join(segs, "/")
	if filepath.IsAbs(file) {
		if !strings.HasPrefix(esc, "/") {
			esc = "/" + esc // C:/x: file:///C:/x
		}
		return sarifArtifact{URI: "file://" + esc}
	}
	return sarifArtifact{URI: strings.TrimPrefix(esc, "./"), URIBaseID: "%SRCROOT%"}
}

// pathEscape escapes a path segment as RFC 3986 requires.
func pathEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		const hex = "0123456789ABCDEF"
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func writeSARIF(w io.Writer, rep *Report, version string) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: "restls", Version: version,
			InformationURI: "https://github.com/restls/restls", Rules: []sarifRule{}}},
		ColumnKind: "unicodeCodePoints",
		Results:    []sarifResult{},
	}
	index := map[string]int{}
	for _, f := range rep.Findings {
		i, ok := index[f.Code]
		if !ok {
			r := RuleFor(f.Code)
			i = len(run.Tool.Driver.Rules)
			index[f.Code] = i
			text := r.Text()
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
				ID:                   f.Code,
				ShortDescription:     sarifText{Text: shortDescription(r.Markdown)},
				FullDescription:      sarifText{Text: text, Markdown: r.Markdown},
				HelpURI:              HelpURI(f.Code),
				Help:                 sarifText{Text: text + "\nSee " + HelpURI(f.Code), Markdown: r.Markdown + "\n\n[docs/diagnostics.md](" + HelpURI(f.Code) + ")"},
				DefaultConfiguration: sarifDefault{Level: sarifLevel(r.Severity)},
			})
		}
		loc := sarifPhysical{ArtifactLocation: sarifURI(f.File)}
		if f.Line > 0 {
			loc.Region = &sarifRegion{StartLine: f.Line, StartColumn: max(f.Column, 1)}
			if f.EndLine > 0 && (f.EndLine > f.Line || f.EndColumn > f.Column) {
				loc.Region.EndLine, loc.Region.EndColumn = f.EndLine, f.EndColumn
			}
		}
		run.Results = append(run.Results, sarifResult{RuleID: f.Code, RuleIndex: i, Level: sarifLevel(f.Severity),
			Message: sarifText{Text: f.Message}, Locations: []sarifLocation{{PhysicalLocation: loc}}})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

// shortDescription is a rule's Markdown made SARIF's one-line
// shortDescription, a whole sentence: up to the first "; ", ": " or ". "
// outside parentheses and code, without a parenthetical that is long or
// holds clauses of its own, capitalised (unless it starts with code) and
// ended with a full stop. Code spans lose their backticks, as in Text.
func shortDescription(md string) string {
	const maxAside = 40 // a longer parenthetical is left to fullDescription
	var out, aside strings.Builder
	depth, code := 0, false
	keep := func(s string) bool {
		return len(s) <= maxAside && !strings.Contains(s, "; ") && !strings.Contains(s, ": ")
	}
loop:
	for i := 0; i < len(md); i++ {
		c := md[i]
		switch {
		case c == '`':
			code = !code
			continue
		case code:
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
			if depth == 0 {
				aside.WriteByte(c)
				if keep(aside.String()) {
					out.WriteString(aside.String())
				}
				aside.Reset()
				continue
			}
		case depth == 0 && (c == ';' || c == ':' || c == '.') && (i+1 == len(md) || md[i+1] == ' '):
			break loop
		}
		if depth > 0 {
			aside.WriteByte(c)
		} else {
			out.WriteByte(c)
		}
	}
	s := strings.Join(strings.Fields(out.String()), " ")
	s = strings.TrimRight(strings.ReplaceAll(s, " ,", ","), " ,")
	if s == "" {
		return s
	}
	// A sentence starts with a capital, unless it starts with code
	// (pathParams, get) whose case is its meaning.
	if r, n := utf8.DecodeRuneInString(s); unicode.IsLower(r) && !strings.HasPrefix(strings.TrimSpace(md), "`") {
		s = string(unicode.ToUpper(r)) + s[n:]
	}
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
