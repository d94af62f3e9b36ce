package curlin

import (
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// MaxInputBytes is the longest command text Parse reads.
const MaxInputBytes = 1 << 20

// MaxNesting is the deepest nesting of parentheses and braces, quoted or
// not, that Parse accepts: the shell parser recurses on each level, and a
// curl command needs a handful (a JSON body in quotes counts too).
const MaxNesting = 200

// MaxOperators is the most pipe and list operators (|, |&, &&, || and &,
// quoted or not) that Parse accepts: the shell parser builds one level of
// tree per operator, so "curl URL|a|a|a..." within MaxInputBytes would
// be hundreds of thousands of levels deep. A curl command needs one or
// two (| jq .); a URL's query counts each of its & too.
const MaxOperators = 1000

// MaxCompound is the most reserved words that open a compound command
// (if, elif, while, until, for, select, case, time, coproc, function,
// [[), standing alone as a word, that Parse accepts: the shell parser
// recurses on each. A curl command needs none.
const MaxCompound = 1000

// maxTreeDepth bounds every walk of the parsed tree: the bounds above
// keep a real command far below it (a level of nesting or an operator
// takes a few nodes), and a walk that reaches it stops with an error
// instead of recursing further.
const maxTreeDepth = 4 * (MaxNesting + MaxOperators + MaxCompound)

// Command is what a curl command line asks for, as curl reads it.
type Command struct {
	// Method is the -X value as written, "" when none was given.
	Method string
	// Head is -I/--head; Get is -G/--get (data goes to the query).
	Head, Get bool
	// URLs are the URLs given (curl accepts several; a call has one).
	URLs []string
	// Headers are the -H values as written ("Name: value", "Name:" to
	// remove a header curl adds, "Name;" for an empty value), with -A,
	// -e, -b and --oauth2-bearer turned into the header they set.
	Headers []string
	// Data are the -d, --data-*, --json values in order.
	Data []Data
	// Form are the -F and --form-string fields in order.
	Form []FormField
	// User is the -u value; HasUser reports that -u was given.
	User    string
	HasUser bool
	// URLQuery are the --url-query values.
	URLQuery []string
	// Ignored names the options that do not change the request
	// (--compressed, -s, -L, -o FILE, ...), once each.
	Ignored []string
	// Vars are the shell variables the command uses that it does not
	// assign; each is left in the text as $NAME.
	Vars []string
}

// Data is one data option: Kind is "data" (-d, --data, --data-ascii),
// "binary", "raw", "urlencode" or "json".
type Data struct {
	Kind, Text string
}

// FormField is one -F (Literal false) or --form-string (Literal true)
// field, split at its first "=".
type FormField struct {
	Name, Value string
	Literal     bool
}

// Parse reads text as a POSIX shell would and returns the curl command in
// it. Text may hold variable assignments before the command (our own
// export assigns text with control characters so), comments, line
// continuations and a pipe after it; it must hold exactly one curl
// command. Parse never runs anything: a command substitution other than
// printf of a literal is an error.
func Parse(text string) (*Command, error) {
	if len(text) > MaxInputBytes {
		return nil, fmt.Errorf("the curl command is %d bytes; at most %d are read", len(text), MaxInputBytes)
	}
	if d := nesting(text); d > MaxNesting {
		return nil, fmt.Errorf("the curl command nests parentheses or braces %d deep; at most %d are read", d, MaxNesting)
	}
	if n := operators(text); n > MaxOperators {
		return nil, fmt.Errorf("the curl command holds %d pipe or list operators (|, &&, ||, &; quoted or not, so a URL's & counts); at most %d are read: paste the curl command alone", n, MaxOperators)
	}
	if n := compounds(text); n > MaxCompound {
		return nil, fmt.Errorf("the curl command holds %d shell keywords that open a compound command (if, while, for, case, ...); at most %d are read: paste the curl command alone", n, MaxCompound)
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		return nil, fmt.Errorf("the text is not a shell command line: %w", err)
	}
	// The first walk checks the depth as it goes; findCurl and the
	// expansion below recurse only within the depth it checked.
	if err := plainExpansions(f); err != nil {
		return nil, err
	}
	env := &shellEnv{vars: map[string]string{}, budget: expandBudget}
	cfg := &expand.Config{Env: env, CmdSubst: printfSubst}
	var call *syntax.CallExpr
	for _, st := range f.Stmts {
		ce, ok := st.Cmd.(*syntax.CallExpr)
		if ok && len(ce.Args) == 0 && call == nil {
			// NAME=value ...: assignments before the command.
			for _, a := range ce.Assigns {
				if a.Name == nil || a.Value == nil || a.Append || a.Index != nil || a.Array != nil {
					continue
				}
				v, err := expand.Literal(cfg, a.Value)
				if err != nil {
					return nil, wordError(a.Value, err)
				}
				if env.budget -= len(v); env.budget < 0 || env.over {
					return nil, errTooLarge
				}
				env.vars[a.Name.Value] = v
			}
			continue
		}
		found := findCurl(st.Cmd)
		if found == nil {
			continue
		}
		if call != nil {
			return nil, fmt.Errorf("line %d: a second curl command; paste one command at a time", found.Pos().Line())
		}
		call = found
	}
	if call == nil {
		return nil, errors.New("no curl command found: paste a command line that starts with curl")
	}
	// Fields, as the shell passes arguments: quote removal, brace
	// expansion (lazily: a budget stops it), never globbing.
	args := make([]string, 0, len(call.Args)-1)
	for _, w := range call.Args[1:] {
		for s, err := range expand.FieldsSeq(cfg, w) {
			if err != nil {
				return nil, wordError(w, err)
			}
			if env.budget -= len(s) + 1; env.budget < 0 || len(args) >= maxArgs {
				return nil, errTooLarge
			}
			args = append(args, s)
		}
	}
	if env.over {
		return nil, errTooLarge
	}
	c, err := parseArgs(args)
	if err != nil {
		return nil, err
	}
	c.Vars = env.missingNames()
	return c, nil
}

// findCurl returns the curl call in cmd: cmd itself, or a side of a pipe
// or list (curl ... | jq .).
func findCurl(cmd syntax.Command) *syntax.CallExpr {
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) > 0 {
			if name := c.Args[0].Lit(); name == "curl" || path.Base(name) == "curl" || name == "curl.exe" {
				return c
			}
		}
	case *syntax.BinaryCmd:
		if x := findCurl(c.X.Cmd); x != nil {
			return x
		}
		return findCurl(c.Y.Cmd)
	}
	return nil
}

func wordError(w *syntax.Word, err error) error {
	var ue expand.UnexpectedCommandError
	if errors.As(err, &ue) {
		return fmt.Errorf("line %d: the command runs a command substitution $(...); paste the command with its value instead", w.Pos().Line())
	}
	return fmt.Errorf("line %d: %v", w.Pos().Line(), err)
}

// expandBudget bounds the bytes that expansion produces in all (variable
// values read, arguments made): "$X$X$X..." or {a,b}{a,b}... would
// otherwise grow without bound from a short text.
const expandBudget = 4 * MaxInputBytes

// maxArgs bounds the arguments of the curl command.
const maxArgs = 10000

var errTooLarge = fmt.Errorf("the curl command expands to more than %d bytes or %d arguments; paste the command a shell would run", expandBudget, maxArgs)

// plainExpansions refuses the expansions Parse does not evaluate:
// arithmetic, process substitution, and parameter expansions other than
// $NAME, ${NAME}, defaults and prefix or suffix removal (our export uses
// ${NAME%x}); those that replace or repeat text could make a short
// command expand without bound. It also refuses a tree deeper than
// maxTreeDepth, and never descends past it.
func plainExpansions(f *syntax.File) error {
	var err error
	depth := 0
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			// Walk calls fn(nil) after the children of a node it
			// descended into.
			depth--
			return false
		}
		if err != nil {
			return false
		}
		if depth >= maxTreeDepth {
			err = fmt.Errorf("line %d: the command nests shell constructs (pipelines, lists, subshells, if, while, ...) more than %d levels deep; paste the curl command alone", n.Pos().Line(), maxTreeDepth)
			return false
		}
		depth++
		switch n := n.(type) {
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.ProcSubst:
			err = fmt.Errorf("line %d: the command uses a shell expansion restls does not evaluate; paste the command with its values", n.Pos().Line())
		case *syntax.ParamExp:
			ok := n.Param != nil && n.Flags == nil && !n.Excl && !n.Length && !n.Width && !n.IsSet &&
				n.NestedParam == nil && n.Index == nil && len(n.Modifiers) == 0 && n.Slice == nil && n.Repl == nil && n.Names == 0
			if ok && n.Exp != nil {
				switch n.Exp.Op {
				case syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix,
					syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
				default:
					ok = false
				}
			}
			if !ok {
				err = fmt.Errorf("line %d: the command uses a parameter expansion restls does not evaluate (only $NAME, ${NAME}, ${NAME:-default} and ${NAME%%suffix} and their kin); paste the command with its values", n.Pos().Line())
			}
		}
		if err != nil {
			depth--
			return false
		}
		return true
	})
	return err
}

// shellEnv answers the variables assigned before the command; any other
// variable stays in the text as $NAME (a credential our own export names,
// or the user's), and is remembered. Every value read counts against the
// budget; once it is spent values read as empty and over is set.
type shellEnv struct {
	vars    map[string]string
	missing map[string]bool
	budget  int
	over    bool
}

// shellNames are variables the expander reads for itself: unset here.
var shellNames = map[string]bool{"IFS": true, "PWD": true, "HOME": true, "OLDPWD": true}

func (e *shellEnv) Get(name string) expand.Variable {
	if v, ok := e.vars[name]; ok {
		if e.budget -= len(v); e.budget < 0 {
			e.over = true
			return expand.Variable{Set: true, Kind: expand.String}
		}
		return expand.Variable{Set: true, Kind: expand.String, Str: v}
	}
	if !isName(name) || shellNames[name] {
		return expand.Variable{}
	}
	if e.missing == nil {
		e.missing = map[string]bool{}
	}
	e.missing[name] = true
	return expand.Variable{Set: true, Kind: expand.String, Str: "$" + name}
}

func (e *shellEnv) Each(fn func(string, expand.Variable) bool) {
	for k, v := range e.vars {
		if !fn(k, expand.Variable{Set: true, Kind: expand.String, Str: v}) {
			return
		}
	}
}

func (e *shellEnv) missingNames() []string {
	out := make([]string, 0, len(e.missing))
	for k := range e.missing {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// printfSubst expands $(printf 'FORMAT'), the only command substitution
// Parse accepts: our own export writes text holding control characters so.
func printfSubst(w io.Writer, cs *syntax.CmdSubst) error {
	if len(cs.Stmts) == 1 {
		if ce, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(ce.Args) == 2 && ce.Args[0].Lit() == "printf" && len(ce.Assigns) == 0 {
			if format, ok := quotedLiteral(ce.Args[1]); ok {
				out, err := printf(format)
				if err != nil {
					return err
				}
				_, err = io.WriteString(w, out)
				return err
			}
		}
	}
	return expand.UnexpectedCommandError{Node: cs}
}

// quotedLiteral is the text of a word made only of literals and single
// quotes (no expansion).
func quotedLiteral(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		default:
			return "", false
		}
	}
	return b.String(), true
}

// printf formats a printf FORMAT without arguments: backslash escapes and
// %%; any other directive is an error.
func printf(format string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		switch {
		case c == '%':
			if i+1 < len(format) && format[i+1] == '%' {
				b.WriteByte('%')
				i++
				continue
			}
			return "", errors.New("printf with a directive other than %%: paste the command with its value instead")
		case c == '\\' && i+1 < len(format):
			i++
			e := format[i]
			if e >= '0' && e <= '7' {
				v, n := 0, 0
				for n < 3 && i < len(format) && format[i] >= '0' && format[i] <= '7' {
					v = v*8 + int(format[i]-'0')
					i++
					n++
				}
				i--
				b.WriteByte(byte(v))
				continue
			}
			if r, ok := map[byte]byte{'\\': '\\', 'a': 7, 'b': 8, 'f': 12, 'n': 10, 'r': 13, 't': 9, 'v': 11, '"': '"', '\'': '\''}[e]; ok {
				b.WriteByte(r)
			} else {
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// nesting is the deepest nesting of ( and {, quoted or not: an upper
// bound of how deep the shell parser recurses, checked before it does
// (telling quoted from unquoted would take the parser itself).
func nesting(s string) int {
	depth, max := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{':
			depth++
			if depth > max {
				max = depth
			}
		case ')', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return max
}

// operators counts the runs of | and & in s, quoted or not: an upper
// bound of the pipe and list operators the shell parser reads.
func operators(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '|' || c == '&' {
			if i == 0 || s[i-1] != '|' && s[i-1] != '&' {
				n++
			}
		}
	}
	return n
}

// compoundWords are the reserved words on which the shell parser
// recurses.
var compoundWords = map[string]bool{
	"if": true, "elif": true, "while": true, "until": true, "for": true, "select": true,
	"case": true, "time": true, "coproc": true, "function": true, "[[": true,
}

// compounds counts the words of s that are compoundWords, quoted or not,
// a word being what lies between blanks and shell operator characters:
// an upper bound of the levels the shell parser recurses on keywords (a
// reserved word is only ever a whole unquoted word).
func compounds(s string) int {
	n := 0
	for i := 0; i < len(s); {
		for i < len(s) && wordBreak(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !wordBreak(s[j]) {
			j++
		}
		if j-i <= len("function") && compoundWords[s[i:j]] {
			n++
		}
		i = j
	}
	return n
}

// wordBreak reports the bytes that end a shell word unquoted (a line
// continuation's backslash too, to stay an upper bound).
func wordBreak(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ';', '&', '|', '(', ')', '<', '>', '\\':
		return true
	}
	return false
}
