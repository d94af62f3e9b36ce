package engine

import (
	"strings"
	"unicode/utf8"

	"github.com/restls/restls/jslevel"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/dryrun"
)

// refused is the result of a script that uses what the platform's engine
// level (the snapshot's, restls.yaml's engine) does not accept: it does
// not run, and its error says, for the first use, what the editor's and
// restls check's engine-syntax or engine-builtin diagnostic says, word
// for word (jslevel.Use.Message); Errors list each use, at most
// runtime.MaxSyntaxErrors. nil when there is none.
func refused(text string, level jslevel.Level) *dryrun.ScriptError {
	uses := jslevel.Check(text, level)
	if len(uses) == 0 {
		return nil
	}
	first := uses[0]
	se := &dryrun.ScriptError{Name: "SyntaxError", Code: first.Code(), Message: first.Message(level)}
	if first.Feature.Kind == jslevel.Builtin {
		se.Name = "TypeError"
	}
	for i, u := range uses {
		if i == scriptrt.MaxSyntaxErrors {
			break
		}
		line, col, src := place(text, u.Start)
		se.Errors = append(se.Errors, dryrun.SourceError{Message: u.Message(level), Line: line, Column: col, SourceLine: src})
	}
	se.Line, se.Column, se.SourceLine = se.Errors[0].Line, se.Errors[0].Column, se.Errors[0].SourceLine
	return se
}

// place is the line and column (1-based, in characters) of byte offset
// o of text, and the line's text.
func place(text string, o int) (line, col int, src string) {
	o = min(max(o, 0), len(text))
	before := text[:o]
	start := strings.LastIndexByte(before, '\n') + 1
	end := strings.IndexByte(text[start:], '\n')
	if end < 0 {
		end = len(text) - start
	}
	return strings.Count(before, "\n") + 1, utf8.RuneCountInString(before[start:]) + 1, strings.TrimRight(text[start:start+end], "\r")
}
