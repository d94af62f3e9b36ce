package hints

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// The hover of a script's first line from its static worst case
// (worstcase.go): the figure and each call's share (hover.go asks).

// worstRowsShown is how many calls the hover lists.
const worstRowsShown = 12

// Markdown is the hover of the script's first line: the figure, how it is
// made, and the calls that make it.
func (w WorstCase) Markdown(text string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Worst case: %s** for a %s", w.figure(), w.Kind)
	if w.Limit > 0 {
		state := "within"
		if w.Above() {
			state = "above"
		}
		fmt.Fprintf(&b, " (%s its limit of %s, restls.yaml `timeLimits.%s`)", state, msText(w.Limit.Milliseconds()), w.Kind)
	}
	b.WriteString("\n\nThe sum of each call's connection and read timeouts in force; an OAuth call counts 4 exchanges (token request, call, and on a 401 a new token request and the retry). Calls in loops and array callbacks count once per iteration.\n\n")
	b.WriteString("| line | call | connect | read | exchanges | runs | total |\n|---|---|---|---|---|---|---|\n")
	var m *lineIndex
	for i, c := range w.Calls {
		if i == worstRowsShown {
			fmt.Fprintf(&b, "\n… and %d more calls\n", len(w.Calls)-i)
			break
		}
		if m == nil {
			m = newLineIndex(text)
		}
		id := code(c.ServiceID)
		if c.Dynamic {
			id = "serviceId computed at run time"
		}
		what := c.Name + " " + id
		if c.OAuth {
			what += " (OAuth)"
		}
		runs := strconv.Itoa(c.Times)
		total := msText(c.Ms())
		if c.InLoop {
			runs += " per iteration"
			total += " per iteration"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %d | %s | %s |\n", m.line(c.NameRange.Start), what, msText(int64(c.ConnectMs)), msText(int64(c.ReadMs)), c.Exchanges, runs, total)
	}
	return b.String()
}

// lineIndex maps offsets to 1-based line numbers.
type lineIndex struct{ starts []int }

func newLineIndex(text string) *lineIndex {
	l := &lineIndex{starts: []int{0}}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			l.starts = append(l.starts, i+1)
		}
	}
	return l
}

func (l *lineIndex) line(off int) int { return sort.SearchInts(l.starts, off+1) }
