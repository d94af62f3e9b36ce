package coverage

import (
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/restls/restls/input"
)

// WriteLCOV writes rep as an LCOV tracefile: a record per script with
// its lines (DA) and branches (BRDA: a branch point not reached has "-"
// for each arm).
func WriteLCOV(w io.Writer, rep *Report) error {
	var b strings.Builder
	for _, s := range rep.Scripts {
		b.WriteString("TN:\nSF:" + lcovPath(s.Name) + "\n")
		for i, br := range s.Branches {
			reached := false
			for _, n := range br.Taken {
				reached = reached || n > 0
			}
			for j, n := range br.Taken {
				taken := "-"
				if reached {
					taken = strconv.Itoa(n)
				}
				fmt.Fprintf(&b, "BRDA:%d,%d,%d,%s\n", br.Line, i, j, taken)
			}
		}
		fmt.Fprintf(&b, "BRF:%d\nBRH:%d\n", s.BranchSum.Found, s.BranchSum.Hit)
		for _, l := range s.Lines {
			fmt.Fprintf(&b, "DA:%d,%d\n", l.Line, l.Hits)
		}
		fmt.Fprintf(&b, "LF:%d\nLH:%d\nend_of_record\n", s.LineSum.Found, s.LineSum.Hit)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// lcovPath is a script's name as a tracefile line holds it: one line.
func lcovPath(name string) string {
	return strings.NewReplacer("\n", " ", "\r", " ").Replace(filepath.ToSlash(name))
}

type cobertura struct {
	XMLName         xml.Name   `xml:"coverage"`
	LineRate        string     `xml:"line-rate,attr"`
	BranchRate      string     `xml:"branch-rate,attr"`
	LinesCovered    int        `xml:"lines-covered,attr"`
	LinesValid      int        `xml:"lines-valid,attr"`
	BranchesCovered int        `xml:"branches-covered,attr"`
	BranchesValid   int        `xml:"branches-valid,attr"`
	Complexity      string     `xml:"complexity,attr"`
	Version         string     `xml:"version,attr"`
	Timestamp       int64      `xml:"timestamp,attr"`
	Sources         []string   `xml:"sources>source"`
	Packages        []coberPkg `xml:"packages>package"`
}

type coberPkg struct {
	Name       string       `xml:"name,attr"`
	LineRate   string       `xml:"line-rate,attr"`
	BranchRate string       `xml:"branch-rate,attr"`
	Complexity string       `xml:"complexity,attr"`
	Classes    []coberClass `xml:"classes>class"`
}

type coberClass struct {
	Name       string      `xml:"name,attr"`
	Filename   string      `xml:"filename,attr"`
	LineRate   string      `xml:"line-rate,attr"`
	BranchRate string      `xml:"branch-rate,attr"`
	Complexity string      `xml:"complexity,attr"`
	Methods    struct{}    `xml:"methods"`
	Lines      []coberLine `xml:"lines>line"`
}

type coberLine struct {
	Number            int    `xml:"number,attr"`
	Hits              int    `xml:"hits,attr"`
	Branch            bool   `xml:"branch,attr"`
	ConditionCoverage string `xml:"condition-coverage,attr,omitempty"`
}

// CoberturaOptions are what a Cobertura report says besides coverage.
type CoberturaOptions struct {
	// Source is the directory the scripts' names are relative to (CI
	// tools resolve filenames against it); Timestamp is when, in
	// milliseconds since 1970.
	Source    string
	Timestamp int64
	Version   string
}

func rate(r Ratio) string {
	if r.Found == 0 {
		return "1"
	}
	return strconv.FormatFloat(float64(r.Hit)/float64(r.Found), 'f', 4, 64)
}

// WriteCobertura writes rep as Cobertura XML (coverage-04.dtd): a package
// per directory, a class per script, its lines with their branches'
// condition coverage.
func WriteCobertura(w io.Writer, rep *Report, o CoberturaOptions) error {
	out := cobertura{LineRate: rate(rep.Lines), BranchRate: rate(rep.Branches),
		LinesCovered: rep.Lines.Hit, LinesValid: rep.Lines.Found, BranchesCovered: rep.Branches.Hit, BranchesValid: rep.Branches.Found,
		Complexity: "0", Version: o.Version, Timestamp: o.Timestamp, Sources: []string{o.Source}}
	pkgs := map[string]int{}
	type sums struct{ lines, branches Ratio }
	var pkgSums []sums
	for _, s := range rep.Scripts {
		name := filepath.ToSlash(s.Name)
		dir := path.Dir(name)
		i, ok := pkgs[dir]
		if !ok {
			i = len(out.Packages)
			pkgs[dir] = i
			out.Packages = append(out.Packages, coberPkg{Name: dir, Complexity: "0"})
			pkgSums = append(pkgSums, sums{})
		}
		cls := coberClass{Name: path.Base(name), Filename: name, LineRate: rate(s.LineSum), BranchRate: rate(s.BranchSum), Complexity: "0"}
		byLine := map[int]Ratio{}
		for _, br := range s.Branches {
			r := byLine[br.Line]
			for _, n := range br.Taken {
				r.Found++
				if n > 0 {
					r.Hit++
				}
			}
			byLine[br.Line] = r
		}
		for _, l := range s.Lines {
			cl := coberLine{Number: l.Line, Hits: l.Hits}
			if r, ok := byLine[l.Line]; ok && r.Found > 0 {
				cl.Branch = true
				cl.ConditionCoverage = fmt.Sprintf("%d%% (%d/%d)", 100*r.Hit/r.Found, r.Hit, r.Found)
			}
			cls.Lines = append(cls.Lines, cl)
		}
		out.Packages[i].Classes = append(out.Packages[i].Classes, cls)
		ps := &pkgSums[i]
		ps.lines.Hit += s.LineSum.Hit
		ps.lines.Found += s.LineSum.Found
		ps.branches.Hit += s.BranchSum.Hit
		ps.branches.Found += s.BranchSum.Found
	}
	for i := range out.Packages {
		out.Packages[i].LineRate, out.Packages[i].BranchRate = rate(pkgSums[i].lines), rate(pkgSums[i].branches)
	}
	if _, err := io.WriteString(w, xml.Header+`<!DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd">`+"\n"); err != nil {
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

// WriteText writes the summary a person reads: a line per script with
// its lines and branches covered, then a line per call site with the
// outcomes the tests exercised, then the total.
func WriteText(w io.Writer, rep *Report) error {
	var b strings.Builder
	for _, s := range rep.Scripts {
		name := input.Printable(s.Name)
		if s.Error != "" {
			fmt.Fprintf(&b, "coverage %s: not measured: %s\n", name, input.Printable(s.Error))
			continue
		}
		fmt.Fprintf(&b, "coverage %s: lines %s, branches %s\n", name, s.LineSum, s.BranchSum)
		if miss := missed(s.Lines); miss != "" {
			fmt.Fprintf(&b, "  lines not run: %s\n", miss)
		}
		for _, c := range s.Calls {
			method := strings.ToUpper(c.Method)
			if method == "" {
				method = "call"
			}
			what := "never called"
			if len(c.Outcomes) > 0 {
				var os []string
				for _, o := range c.Outcomes {
					os = append(os, o.Outcome)
				}
				what = strings.Join(os, ", ")
			}
			svc := ""
			if len(c.Services) > 0 {
				svc = " " + input.Printable(strings.Join(c.Services, ","))
			}
			fmt.Fprintf(&b, "  %s%s at %d:%d: %s\n", method, svc, c.Line, c.Column, what)
		}
	}
	fmt.Fprintf(&b, "coverage total: lines %s, branches %s\n", rep.Lines, rep.Branches)
	_, err := io.WriteString(w, b.String())
	return err
}

// missed is the lines never run, as ranges: "4-6, 9".
func missed(lines []Line) string {
	var parts []string
	for i := 0; i < len(lines); i++ {
		if lines[i].Hits > 0 {
			continue
		}
		j := i
		for j+1 < len(lines) && lines[j+1].Hits == 0 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(lines[i].Line))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", lines[i].Line, lines[j].Line))
		}
		i = j
	}
	return strings.Join(parts, ", ")
}
