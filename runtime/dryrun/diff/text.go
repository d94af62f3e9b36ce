package diff

import (
	"fmt"
	"io"
	"strings"

	"github.com/restls/restls/input"
)

// maxShown is the longest old or new value a line shows; past it the
// value is cut with "…".
const maxShown = 200

// Text writes d for a terminal: a summary line, then one block per call
// that differs and the result's changes. oldName and newName say what is
// compared ("the run of 2026-11-28 07:40:00", "this run").
func Text(w io.Writer, d *Diff, oldName, newName string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "diff: %s (%s) → %s (%s)\n", input.Printable(oldName), calls(d.OldCalls), input.Printable(newName), calls(d.NewCalls))
	if d.Same {
		b.WriteString("  no change\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	count := map[string]int{}
	for _, c := range d.Calls {
		count[c.Kind]++
	}
	fmt.Fprintf(&b, "  calls: %d changed, %d added, %d missing\n", count[Changed], count[Added], count[Missing])
	for _, c := range d.Calls {
		switch c.Kind {
		case Added:
			fmt.Fprintf(&b, "+ call %d %s %s %s\n", c.New, input.Printable(c.ServiceID), input.Printable(c.Method), input.Printable(c.URL))
		case Missing:
			fmt.Fprintf(&b, "- call %d (before) %s %s %s\n", c.Old, input.Printable(c.ServiceID), input.Printable(c.Method), input.Printable(c.URL))
		default:
			at := fmt.Sprint(c.New)
			if c.Old != c.New {
				at = fmt.Sprintf("%d (before %d)", c.New, c.Old)
			}
			fmt.Fprintf(&b, "~ call %s %s %s %s\n", at, input.Printable(c.ServiceID), input.Printable(c.Method), input.Printable(c.URL))
			for _, ch := range c.Changes {
				writeChange(&b, ch)
			}
			if c.More > 0 {
				fmt.Fprintf(&b, "    … and %d more changes in the body\n", c.More)
			}
		}
	}
	if len(d.Result) > 0 {
		b.WriteString("~ result\n")
	}
	for _, ch := range d.Result {
		writeChange(&b, ch)
	}
	if d.More > 0 {
		fmt.Fprintf(&b, "    … and %d more changes in the result\n", d.More)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeChange(b *strings.Builder, c Change) {
	label := c.What
	if c.Path != "" {
		label += " " + c.Path
	}
	fmt.Fprintf(b, "    %s: %s → %s\n", input.Printable(label), shown(c.Old), shown(c.New))
}

func shown(v []byte) string {
	if v == nil {
		return "(absent)"
	}
	s := string(v)
	if r := []rune(s); len(r) > maxShown {
		s = string(r[:maxShown]) + "…"
	}
	return input.Printable(s)
}

// calls says "1 call" or "N calls".
func calls(n int) string {
	if n == 1 {
		return "1 call"
	}
	return fmt.Sprintf("%d calls", n)
}
