package scripttest

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/restls/restls/faults"
	"github.com/restls/restls/input"
)

// WriteText writes a block per failing test (and with verbose a line per
// passing one), then the summary line.
func WriteText(w io.Writer, rep *Report, verbose bool) error {
	var b strings.Builder
	for _, o := range rep.Outcomes {
		// File names, case names and failures (results, logs, messages
		// of the script and its services) are the repository's text:
		// escaped for the terminal.
		file, name := input.Printable(o.File), input.Printable(o.Name)
		switch {
		case o.Updated:
			fmt.Fprintf(&b, "UPDATE %s:%d: %s\n", file, o.Line, name)
		case o.Passed && verbose:
			fmt.Fprintf(&b, "PASS %s:%d: %s (%s)\n", file, o.Line, name, ms(o.DurationMs))
		case !o.Passed:
			fmt.Fprintf(&b, "FAIL %s:%d: %s\n", file, o.Line, name)
			for _, f := range o.Failures {
				b.WriteString(indent(input.PrintableLines(f)))
				b.WriteByte('\n')
			}
		}
		// The table of the case's error paths, whenever it was explored.
		if o.Faults != nil {
			var t strings.Builder
			_ = faults.WriteText(&t, o.Script, o.Faults)
			fmt.Fprintf(&b, "FAULTS %s:%d: %s\n", file, o.Line, name)
			for _, line := range strings.Split(strings.TrimSuffix(input.PrintableLines(t.String()), "\n"), "\n") {
				if line != "" {
					b.WriteString("  " + line)
				}
				b.WriteByte('\n')
			}
		} else if o.FaultsNote != "" && verbose {
			fmt.Fprintf(&b, "FAULTS %s:%d: %s: %s\n", file, o.Line, name, o.FaultsNote)
		}
	}
	b.WriteString(Summary(rep))
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

func ms(d float64) string {
	if d < 10 {
		return fmt.Sprintf("%.1fms", d)
	}
	return fmt.Sprintf("%.0fms", d)
}

// Summary is the last line of the text output.
func Summary(rep *Report) string {
	total := len(rep.Outcomes)
	word := "tests"
	if total == 1 {
		word = "test"
	}
	files := "files"
	if rep.Files == 1 {
		files = "file"
	}
	s := fmt.Sprintf("%d %s in %d %s: %d passed, %d failed", total, word, rep.Files, files, rep.Passed, rep.Failed)
	if rep.Updated > 0 {
		s += fmt.Sprintf(", %d updated", rep.Updated)
	}
	if rep.Failed > 0 {
		return "FAIL " + s
	}
	return "ok " + s
}

// WriteJSON writes the report as one JSON object.
func WriteJSON(w io.Writer, rep *Report) error {
	r := *rep
	if r.Outcomes == nil {
		r.Outcomes = []*Outcome{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&r)
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr"`
	Line      int           `xml:"line,attr,omitempty"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func seconds(msec float64) string { return fmt.Sprintf("%.3f", msec/1000) }

// WriteJUnit writes JUnit XML: a testsuite per test file, a testcase per
// test, a failure holding the diff as text.
func WriteJUnit(w io.Writer, rep *Report) error {
	out := junitSuites{Name: "restls test"}
	index := map[string]int{}
	var total float64
	suiteTime := map[string]float64{}
	for _, o := range rep.Outcomes {
		i, ok := index[o.File]
		if !ok {
			i = len(out.Suites)
			index[o.File] = i
			out.Suites = append(out.Suites, junitSuite{Name: o.File})
		}
		s := &out.Suites[i]
		jc := junitCase{Name: o.Name, Classname: o.File, File: o.File, Line: o.Line, Time: seconds(o.DurationMs)}
		if !o.Passed {
			typ := "expectation"
			if o.Name == "(test file)" {
				typ = "malformed"
			}
			jc.Failure = &junitFailure{Message: firstLine(o.Failures), Type: typ, Text: strings.Join(o.Failures, "\n")}
			s.Failures++
			out.Failures++
		}
		s.Tests++
		out.Tests++
		suiteTime[o.File] += o.DurationMs
		total += o.DurationMs
		s.Cases = append(s.Cases, jc)
	}
	for i := range out.Suites {
		out.Suites[i].Time = seconds(suiteTime[out.Suites[i].Name])
	}
	out.Time = seconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func firstLine(fails []string) string {
	if len(fails) == 0 {
		return ""
	}
	s, _, _ := strings.Cut(fails[0], "\n")
	return s
}
