package scripttest

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/restls/restls/input"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/restclient"
)

// failed says which parts of a case's expectations failed.
type failed struct{ result, calls, logs bool }

// compare returns what differs between c's expectations and res, one
// paragraph per expectation that failed, then the calls made.
func compare(c *Case, res *scriptrt.Result) ([]string, []Mismatch, failed) {
	e := c.Expect
	var fails []string
	var mismatches []Mismatch
	var which failed
	switch {
	case e.Error != nil && res.Error == nil:
		fails = append(fails, "error: expected the script to throw "+describeExpectedError(e.Error)+", but it returned "+compact(res.Result))
	case e.Error != nil:
		if d := errorDiff(e.Error, res.Error); d != "" {
			fails = append(fails, "error:\n"+d+"\n"+uncaught(c.file.Script, res.Error))
		}
	case res.Error != nil:
		fails = append(fails, uncaught(c.file.Script, res.Error))
	case e.HasResult || e.HasMatch:
		actual, err := decodeJSON(res.Result)
		if err != nil {
			fails = append(fails, "result: not JSON: "+err.Error())
			break
		}
		if e.HasResult {
			mismatches = diff("$", e.Result, actual, false, nil)
		} else {
			mismatches = diff("$", e.ResultMatch, actual, true, nil)
		}
		if lines := mismatchLines(mismatches); len(lines) > 0 {
			what := "result"
			if e.HasMatch {
				what = "resultMatch"
			}
			fails = append(fails, what+" (expected vs actual, by JSON path):\n"+indent(strings.Join(lines, "\n")))
		}
	}
	which.result = len(fails) > 0
	if e.HasCalls {
		if d := callsDiff(e.Calls, res.Calls, e.CallsInAnyOrder); d != "" {
			fails = append(fails, d)
			which.calls = true
		}
	}
	if e.HasLogs {
		if d := logsDiff(e.Logs, res.Logs); d != "" {
			fails = append(fails, d)
			which.logs = true
		}
	}
	if len(fails) > 0 {
		fails = append(fails, callsMade(res.Calls))
	}
	return fails, mismatches, which
}

func describeExpectedError(e *ExpectError) string {
	var parts []string
	if e.Name != "" {
		parts = append(parts, e.Name)
	}
	if e.Code != "" {
		parts = append(parts, "code "+e.Code)
	}
	if e.Status != 0 {
		parts = append(parts, fmt.Sprintf("status %d", e.Status))
	}
	if e.Message != "" {
		parts = append(parts, strconv.Quote(e.Message))
	}
	if len(parts) == 0 {
		return "an error"
	}
	return strings.Join(parts, " ")
}

func errorDiff(want *ExpectError, got *scriptrt.ScriptError) string {
	var lines []string
	status := 0
	if got.Status != nil {
		status = got.Status.Code
	}
	if want.Code != "" && want.Code != got.Code {
		lines = append(lines, fmt.Sprintf("$.code: expected %q, got %q", want.Code, got.Code))
	}
	if want.Status != 0 && want.Status != status {
		lines = append(lines, fmt.Sprintf("$.status: expected %d, got %d", want.Status, status))
	}
	if want.Name != "" && want.Name != got.Name {
		lines = append(lines, fmt.Sprintf("$.name: expected %q, got %q", want.Name, got.Name))
	}
	if want.Message != "" && want.Message != got.Message {
		lines = append(lines, fmt.Sprintf("$.message: expected %q, got %q", want.Message, got.Message))
	}
	return indent(strings.Join(lines, "\n"))
}

// uncaught describes the script's uncaught error with its position and
// the line it is on.
func uncaught(script string, e *scriptrt.ScriptError) string {
	var b strings.Builder
	b.WriteString("uncaught error")
	if e.Line > 0 {
		fmt.Fprintf(&b, " at %s:%d:%d", script, e.Line, e.Column)
	}
	fmt.Fprintf(&b, ": %s: %s", e.Name, e.Message)
	if e.Code != "" {
		fmt.Fprintf(&b, " [%s]", e.Code)
	}
	if e.SourceLine != "" && e.Column > 0 {
		fmt.Fprintf(&b, "\n    %s\n    %s^", e.SourceLine, strings.Repeat(" ", min(e.Column-1, len(e.SourceLine))))
	}
	return b.String()
}

// Mismatch is one difference by JSON path: what the test expects and
// what the script gave, each as compact JSON (cut at 200 bytes) or a
// phrase ("nothing (no such key)", "3 elements").
type Mismatch struct {
	Path     string `json:"path"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
}

func (m Mismatch) String() string {
	return m.Path + ": expected " + m.Expected + ", got " + m.Actual
}

func mismatchLines(ms []Mismatch) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	return out
}

// diff lists the differences between want and got below path; subset
// compares only the keys want has (arrays: the same length, each element
// a subset).
func diff(path string, want, got any, subset bool, out []Mismatch) []Mismatch {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return append(out, Mismatch{path, show(want), show(got)})
		}
		for _, k := range sortedKeys(w) {
			gv, ok := g[k]
			if !ok {
				out = append(out, Mismatch{keyPath(path, k), show(w[k]), "nothing (no such key)"})
				continue
			}
			out = diff(keyPath(path, k), w[k], gv, subset, out)
		}
		if !subset {
			for _, k := range sortedKeys(g) {
				if _, ok := w[k]; !ok {
					out = append(out, Mismatch{keyPath(path, k), "nothing", show(g[k])})
				}
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok {
			return append(out, Mismatch{path, show(want), show(got)})
		}
		if len(w) != len(g) {
			out = append(out, Mismatch{path, fmt.Sprintf("%d elements", len(w)), strconv.Itoa(len(g))})
		}
		for i := range min(len(w), len(g)) {
			out = diff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i], subset, out)
		}
		return out
	}
	if !scalarEqual(want, got) {
		out = append(out, Mismatch{path, show(want), show(got)})
	}
	return out
}

func scalarEqual(a, b any) bool {
	an, aok := a.(json.Number)
	bn, bok := b.(json.Number)
	if aok && bok {
		x, ok1 := new(big.Float).SetString(string(an))
		y, ok2 := new(big.Float).SetString(string(bn))
		if ok1 && ok2 {
			return x.Cmp(y) == 0
		}
		return an == bn
	}
	if aok || bok {
		return false
	}
	switch a.(type) {
	case map[string]any, []any:
		return false
	}
	switch b.(type) {
	case map[string]any, []any:
		return false
	}
	return a == b
}

func keyPath(path, k string) string {
	for i, r := range k {
		if !(r == '_' || r == '$' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return path + "[" + strconv.Quote(k) + "]"
		}
	}
	if k == "" {
		return path + `[""]`
	}
	return path + "." + k
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// show is a value as compact JSON, cut at 200 bytes.
func show(v any) string {
	b, err := input.TextJSON(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return cut(string(b))
}

func compact(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "undefined"
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return cut(string(raw))
	}
	return show(v)
}

func cut(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// callMatches lists how actual call got differs from want (nil: it
// matches).
func callMatches(path string, want ExpectCall, got *restclient.Call) []string {
	var out []string
	if want.Method != "" && !strings.EqualFold(want.Method, got.Method) {
		out = append(out, fmt.Sprintf("%s.method: expected %q, got %q", path, want.Method, got.Method))
	}
	if want.ServiceID != "" && want.ServiceID != got.ServiceID {
		out = append(out, fmt.Sprintf("%s.serviceId: expected %q, got %q", path, want.ServiceID, got.ServiceID))
	}
	if want.URL != "" && want.URL != got.URL {
		out = append(out, fmt.Sprintf("%s.url: expected %q, got %q", path, want.URL, got.URL))
	}
	if want.Status != 0 {
		status := 0
		if got.Status != nil {
			status = got.Status.Code
		}
		if status != want.Status {
			out = append(out, fmt.Sprintf("%s.status: expected %d, got %d", path, want.Status, status))
		}
	}
	if want.HasBody {
		body, err := decodeJSON(got.RequestBody)
		if err != nil {
			body = string(got.RequestBody)
		}
		out = append(out, mismatchLines(diff(path+".body", want.Body, body, false, nil))...)
	}
	return out
}

func callsDiff(want []ExpectCall, got []*restclient.Call, anyOrder bool) string {
	var lines []string
	if len(want) != len(got) {
		lines = append(lines, fmt.Sprintf("$: expected %d calls, got %d", len(want), len(got)))
	}
	if !anyOrder {
		for i := range min(len(want), len(got)) {
			lines = append(lines, callMatches(fmt.Sprintf("$[%d]", i), want[i], got[i])...)
		}
		for i := len(got); i < len(want); i++ {
			lines = append(lines, fmt.Sprintf("$[%d]: expected %s, got no call", i, describeCall(want[i])))
		}
	} else {
		used := make([]bool, len(got))
		for i, w := range want {
			found := false
			for j, g := range got {
				if !used[j] && len(callMatches("", w, g)) == 0 {
					used[j], found = true, true
					break
				}
			}
			if !found {
				lines = append(lines, fmt.Sprintf("expected call %d, %s, was not made", i+1, describeCall(w)))
			}
		}
		for j, g := range got {
			if !used[j] && len(want) < len(got) {
				lines = append(lines, fmt.Sprintf("call %d, %s %s %s, was not expected", j+1, g.Method, g.ServiceID, g.URL))
			}
		}
	}
	if len(lines) == 0 {
		return ""
	}
	head := "calls (in order"
	if anyOrder {
		head = "calls (in any order"
	}
	return head + ", expected vs actual):\n" + indent(strings.Join(lines, "\n"))
}

func describeCall(c ExpectCall) string {
	var parts []string
	for _, p := range []string{c.Method, c.ServiceID, c.URL} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return "a call"
	}
	return strings.Join(parts, " ")
}

func logsDiff(want []ExpectLog, got []scriptrt.LogEntry) string {
	var lines []string
	if len(want) != len(got) {
		unit := "lines"
		if len(want) == 1 {
			unit = "line"
		}
		lines = append(lines, fmt.Sprintf("$: expected %d %s, got %d", len(want), unit, len(got)))
	}
	for i := range min(len(want), len(got)) {
		if want[i].Level != "" && want[i].Level != got[i].Level {
			lines = append(lines, fmt.Sprintf("$[%d].level: expected %q, got %q", i, want[i].Level, got[i].Level))
		}
		if want[i].Message != got[i].Message {
			lines = append(lines, fmt.Sprintf("$[%d].message: expected %q, got %q", i, want[i].Message, got[i].Message))
		}
	}
	for i := len(want); i < len(got); i++ {
		lines = append(lines, fmt.Sprintf("$[%d]: expected nothing, got %s: %q", i, got[i].Level, got[i].Message))
	}
	if len(lines) == 0 {
		return ""
	}
	return "logs (expected vs actual):\n" + indent(strings.Join(lines, "\n"))
}

// callsMade lists the calls the script made, for a failing test.
func callsMade(calls []*restclient.Call) string {
	if len(calls) == 0 {
		return "calls made: none"
	}
	var b strings.Builder
	b.WriteString("calls made:")
	for i, c := range calls {
		fmt.Fprintf(&b, "\n  %d. %s %s %s", i+1, c.Method, c.ServiceID, c.URL)
		switch {
		case c.ErrorCode != "":
			fmt.Fprintf(&b, " -> %s", c.ErrorCode)
		case c.Status != nil:
			fmt.Fprintf(&b, " -> %d", c.Status.Code)
		}
	}
	return b.String()
}

// ruleNotChecked is openapi.RuleNotChecked (scripttest does not import
// openapi): a note that says the answer was not checked, and why.
const ruleNotChecked = "not-checked"

// contractFailures are the answers among calls that break their
// operation's description (validateResponses), one paragraph per call:
// the call, what answered it, and each JSON path with its schema rule.
func contractFailures(calls []*restclient.Call) []string {
	var out []string
	for i, c := range calls {
		notes := c.Contract
		if len(notes) == 0 {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "validateResponses: the answer to call %d (%s %s %s", i+1, c.Method, c.ServiceID, c.URL)
		for _, h := range c.ResponseHeaders {
			if strings.EqualFold(h.Name, "X-Restls-Mock") {
				fmt.Fprintf(&b, ", from %s", h.Value)
			}
		}
		fmt.Fprintf(&b, ") does not match %s:", notes[0].Operation)
		unchecked := 0
		for _, n := range notes {
			path := n.Path
			if path == "" {
				path = "(the answer)"
			}
			if n.Rule == ruleNotChecked {
				unchecked++
			}
			fmt.Fprintf(&b, "\n  %s [%s]: %s", path, n.Rule, noteText(n))
		}
		if unchecked == len(notes) {
			// validateResponses promises every answer was checked.
			b.WriteString("\n  the answer could not be checked: make the documented schema smaller, or leave this test out of validateResponses")
		} else {
			b.WriteString("\n  fix the fixture, or the description if the service changed")
		}
		out = append(out, b.String())
	}
	return out
}

// noteText is a note's message without the operation and the path the
// paragraph already names.
func noteText(n restclient.ContractNote) string {
	msg, ok := strings.CutPrefix(n.Message, n.Operation)
	if !ok {
		return n.Message
	}
	if rest, ok := strings.CutPrefix(msg, ", status "); ok {
		if _, after, ok := strings.Cut(rest, ": "); ok {
			msg = after
		}
	}
	msg = strings.TrimPrefix(msg, ": ")
	return strings.TrimPrefix(msg, n.Path+": ")
}
