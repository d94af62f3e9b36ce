package curlin

import (
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja/parser"
)

// fuzzShapes wrap a generated depth of nesting into a curl command: in a
// quoted JSON body, unquoted, in parameter expansions, in command
// substitutions, in brace expansions.
var fuzzShapes = []struct{ open, mid, close, end string }{
	{`curl https://crm.example.com/api/v2 --json '`, `{"a":`, `}`, `'`},
	{`curl https://crm.example.com/api/v2 -d "$(`, ` (`, `)`, `)"`},
	{`curl https://crm.example.com/api/v2/${X:-`, `${Y:-`, `}`, `}`},
	{`curl https://crm.example.com/api/v2 -H "X: `, `$(printf '(' `, `)`, `"`},
	{`curl https://crm.example.com/api/v2/`, `{a,`, `}`, ``},
	{`curl https://crm.example.com/api/v2 --data-raw $'`, `[\'`, `]`, `'`},
}

// FuzzFromCurl: any text, including deep and long ones, is read within
// its budget without panicking, and a call it converts is a JavaScript
// statement that parses, names a configured service and one of the five
// functions.
func FuzzFromCurl(f *testing.F) {
	for _, s := range []string{
		`curl https://crm.example.com/api/v2/orders/42`,
		`curl -X POST -H 'Content-Type: application/json' --data-raw '{"a":[1,{"b":"c"}]}' 'https://crm.example.com/api/v2/x?y=1&z'`,
		`curl -F a=b --form-string 'c=@d' https://docs.example.com/`,
		"X=$(printf '\\0551\\012x'); X=${X%x}\ncurl -d \"$X\" https://docs.example.com",
		`curl -G --data-urlencode 'q=a b' -u u:p http://pay.example.com:8080/api`,
		`curl $'https://docs.example.com/\x41' -H $'X: \'q\''`,
		"curl https://docs.example.com/{a,b}{c,d}",
		`curl 'https://user:pw@docs.example.com/a%2F%zz' -sSLk -XPUT -d@`,
	} {
		f.Add(s, 0, 0)
	}
	f.Add("", 0, 150)
	f.Add("", 4, 30)
	f.Add(strings.Repeat("-H 'X: y' ", 500), 1, 10)
	f.Add(" --data-raw '"+strings.Repeat(`{"a":[1,2,"x"]},`, 30000)+"1'", 0, 0)
	reg := testRegistry(f, testServicesXML)
	f.Fuzz(func(t *testing.T, text string, shape, depth int) {
		if depth != 0 {
			sh := fuzzShapes[(shape%len(fuzzShapes)+len(fuzzShapes))%len(fuzzShapes)]
			d := (depth%(2*MaxNesting) + 2*MaxNesting) % (2 * MaxNesting)
			text = sh.open + strings.Repeat(sh.mid, d) + "1" + strings.Repeat(sh.close, d) + sh.end + " " + text
		}
		start := time.Now()
		call, err := FromCurl(text, reg)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("took %v for %d bytes", d, len(text))
		}
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if _, ok := reg.Service(call.ServiceID); !ok {
			t.Fatalf("serviceId %q is not configured", call.ServiceID)
		}
		switch call.Function {
		case "get", "delete", "post", "put", "patch":
		default:
			t.Fatalf("function %q", call.Function)
		}
		for _, indent := range []string{"", "  "} {
			src := call.Snippet(indent)
			if _, err := parser.ParseFile(nil, "", src, 0); err != nil {
				t.Fatalf("not JavaScript: %v\n%s", err, src)
			}
		}
	})
}

// depthShapes repeat an operator or an opening construct around a curl
// command: long pipelines and lists, deep subshells, braces, compound
// commands and test expressions.
var depthShapes = []struct{ open, mid, close string }{
	{`curl https://crm.example.com/api/v2`, `|a`, ``},
	{`curl https://crm.example.com/api/v2`, ` && a`, ``},
	{`curl https://crm.example.com/api/v2`, `||a`, ``},
	{`curl https://crm.example.com/api/v2`, ` |& a`, ``},
	{`curl https://crm.example.com/api/v2 `, `&a `, ``},
	{``, `(`, `)`},
	{``, `{ `, `;}`},
	{``, `if `, `;then :;fi`},
	{``, `while `, `;do :;done`},
	{``, `time `, ``},
	{`[[ a`, ` || a`, ` ]]`},
	{``, `! (`, `)`},
}

// FuzzParseDepth: a command made deep or long by any of depthShapes, up
// to the input limit, is read or refused with a message, within a
// second, and never overflows the stack; one past a bound is refused.
func FuzzParseDepth(f *testing.F) {
	for shape, sh := range depthShapes {
		// The most repetitions under the input limit.
		fill := (MaxInputBytes - len(sh.open) - 100) / (len(sh.mid) + len(sh.close))
		for _, n := range []int{1, 2, MaxNesting, MaxOperators, MaxOperators + 1, 200000, fill, MaxInputBytes} {
			f.Add(shape, n, "")
		}
	}
	f.Add(0, 100, "curl https://crm.example.com/api/v2 -d 'a=1&b=2' | jq .")
	f.Add(7, 50, "(curl https://crm.example.com/api/v2)")
	f.Fuzz(func(t *testing.T, shape, n int, inner string) {
		sh := depthShapes[(shape%len(depthShapes)+len(depthShapes))%len(depthShapes)]
		if n < 0 {
			n = -(n + 1)
		}
		if inner == "" {
			inner = "curl https://crm.example.com/api/v2"
		}
		// As many repetitions as fit the input limit, and one more.
		if most := (MaxInputBytes+1-len(sh.open)-len(inner))/(len(sh.mid)+len(sh.close)) + 1; n > most {
			n = most
		}
		var text string
		if sh.open != "" {
			text = sh.open + strings.Repeat(sh.mid, n) + sh.close + "\n" + inner
		} else {
			text = strings.Repeat(sh.mid, n) + inner + strings.Repeat(sh.close, n)
		}
		start := time.Now()
		_, err := Parse(text)
		if d := time.Since(start); d > time.Second {
			t.Fatalf("took %v for %d bytes", d, len(text))
		}
		if err != nil && err.Error() == "" {
			t.Fatal("empty error")
		}
		if n > MaxOperators+MaxCompound && err == nil {
			t.Fatalf("%d repetitions of %q read without error", n, sh.mid)
		}
	})
}
