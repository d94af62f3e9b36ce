package runtime

import (
	"bytes"
	"testing"
)

// TestEndOfInputSaysWhatEnded: a script cut short inside an expression or
// statement (return 1+) is told so; one that leaves a block, bracket,
// string or comment open is told that. Both point at the end of the script.
func TestEndOfInputSaysWhatEnded(t *testing.T) {
	for _, tc := range []struct {
		src       string
		msg       string
		line, col int
	}{
		{"return 1+", msgEndsEarly, 1, 10},
		{"var a = 1;\nvar b = a *\n\n", msgEndsEarly, 2, 12},
		{"var x =", msgEndsEarly, 1, 8},
		{"if (x)", msgEndsEarly, 1, 7},
		{"var x = {", msgNotClosed, 1, 10},
		{"f(1,", msgNotClosed, 1, 5},
		{"var a = [1, 2", msgNotClosed, 1, 14},
		{"if (x) {\n  return 1;", msgNotClosed, 2, 12},
		{"var s = `abc", msgNotClosed, 1, 13},
		{"return 1 /* done", msgNotClosed, 1, 17},
	} {
		res := run(t, nil, tc.src)
		e := res.Error
		if e == nil || e.Name != "SyntaxError" || e.Message != tc.msg || e.Line != tc.line || e.Column != tc.col {
			t.Errorf("%q: error %+v\nwant %q at %d:%d", tc.src, e, tc.msg, tc.line, tc.col)
		}
	}
}

// TestFirstArgument: the place of a call's first argument from the place
// of its '(' (a byte column), past blanks and comments, inside a string
// literal's quotes; anything unexpected keeps the place.
func TestFirstArgument(t *testing.T) {
	for _, tc := range []struct {
		src               string
		line, col         int
		wantLine, wantCol int
	}{
		{`get("crn")`, 1, 4, 1, 6},
		{"get('crn')", 1, 4, 1, 6},
		{"get(`crn`)", 1, 4, 1, 6},
		{`get(id)`, 1, 4, 1, 5},
		{"x;\nget( /* a */ // b\n\t \"crn\")", 2, 4, 3, 4},
		{`get()`, 1, 4, 1, 4},       // no argument
		{`get(/* open`, 1, 4, 1, 4}, // unclosed comment
		{`get("crn")`, 1, 3, 1, 3},  // not at a '('
		{`get("crn")`, 2, 1, 2, 1},  // past the end
		{`get(`, 1, 4, 1, 4},        // nothing after
		{"é(\"crn\")", 1, 3, 1, 5},  // byte columns in, byte columns out
	} {
		if l, c := firstArgument(tc.src, tc.line, tc.col); l != tc.wantLine || c != tc.wantCol {
			t.Errorf("firstArgument(%q, %d, %d) = %d:%d, want %d:%d", tc.src, tc.line, tc.col, l, c, tc.wantLine, tc.wantCol)
		}
	}
	if c := charColumn("x\nvar é = \"é\"; f()", 2, 17); c != 15 {
		t.Errorf("charColumn = %d, want 15", c)
	}
}

// TestCaretUnderEscapedText: a control character before the column is
// shown escaped, and the caret stays under the column's character.
func TestCaretUnderEscapedText(t *testing.T) {
	var b bytes.Buffer
	writeCaret(&b, 3, 6, "\tx\x1b=é(y")
	want := "     3 | \tx\\x1b=é(y\n       | \t       ^\n"
	if b.String() != want {
		t.Errorf("writeCaret:\n%q\nwant\n%q", b.String(), want)
	}
}
