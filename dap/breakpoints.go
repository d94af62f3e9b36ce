package dap

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	godap "github.com/google/go-dap"

	"github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/dryrun"
)

// maxBreakpoints bounds the breakpoints of one source; maxLogMessage a
// logpoint's message and a condition.
const (
	maxBreakpoints = 10000
	maxLogMessage  = 4 << 10
)

// breakpoint is a line breakpoint as the client set it: a condition, a
// hit condition and a log message (a logpoint logs and goes on).
type breakpoint struct {
	id        int
	line      int
	condition string
	hit       hitCondition
	log       string
	hits      int // times reached with its condition true
}

// hitCondition is a parsed hitCondition: stop when the count compares to
// n by op ("" none, "==", ">", ">=", "<", "<=", "%").
type hitCondition struct {
	op string
	n  int
}

// hitSyntax is a hitCondition; compiled on first use, as every regexp of
// this package: every restls process links it, the language server never
// debugs (TestStartupWorkOfRunPackages).
var hitSyntax = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(==|>=|<=|>|<|%)?\s*(\d{1,9})\s*$`) })

// parseHit reads a hitCondition: N (stop at the Nth hit and after: as
// >=N), ==N, >N, >=N, <N, <=N, %N (every Nth).
func parseHit(s string) (hitCondition, error) {
	if strings.TrimSpace(s) == "" {
		return hitCondition{}, nil
	}
	m := hitSyntax().FindStringSubmatch(s)
	if m == nil {
		return hitCondition{}, fmt.Errorf("hit count %q: write N, ==N, >N, >=N, <N, <=N or %%N", s)
	}
	n, _ := strconv.Atoi(m[2])
	op := m[1]
	if op == "" {
		op = ">="
	}
	if op == "%" && n == 0 {
		return hitCondition{}, fmt.Errorf("hit count %q: %%0 never stops", s)
	}
	return hitCondition{op: op, n: n}, nil
}

// stops reports whether the count-th hit stops.
func (h hitCondition) stops(count int) bool {
	switch h.op {
	case "==":
		return count == h.n
	case ">":
		return count > h.n
	case ">=":
		return count >= h.n
	case "<":
		return count < h.n
	case "<=":
		return count <= h.n
	case "%":
		return count%h.n == 0
	}
	return true
}

// logExpr is an expression in braces in a logpoint's message.
var logExpr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([^{}]+)\}`) })

// setBreakpoints keeps the breakpoints of a source and says which can
// stop: a line with a statement in the launched script, a condition and
// each logged expression that parse, a hit count that reads.
func (s *session) setBreakpoints(a godap.SetBreakpointsArguments) ([]godap.Breakpoint, error) {
	asked := a.Breakpoints
	if len(asked) == 0 {
		for _, l := range a.Lines {
			asked = append(asked, godap.SourceBreakpoint{Line: l})
		}
	}
	if len(asked) > maxBreakpoints {
		return nil, fmt.Errorf("%d breakpoints in one source: restls dap keeps at most %d; remove some", len(asked), maxBreakpoints)
	}
	path := filepath.Clean(a.Source.Path)
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := map[int]bool{}
	for _, l := range s.lines {
		lines[l] = true
	}
	kept := map[int]*breakpoint{}
	out := make([]godap.Breakpoint, len(asked))
	for i, b := range asked {
		s.nextBreakpoint++
		out[i] = godap.Breakpoint{Id: s.nextBreakpoint, Line: b.Line, Source: &a.Source}
		bp := &breakpoint{id: s.nextBreakpoint, line: b.Line, condition: strings.TrimSpace(b.Condition), log: b.LogMessage}
		var err error
		switch {
		case s.launch == nil || path != s.launch.Program:
			out[i].Message = "restls dap stops only in the launched script"
		case !lines[b.Line]:
			out[i].Message = fmt.Sprintf("line %d has no statement to stop at", b.Line)
		case len(b.Condition) > maxLogMessage || len(b.LogMessage) > maxLogMessage:
			out[i].Message = fmt.Sprintf("a condition or a log message is at most %d KiB", maxLogMessage>>10)
		default:
			if bp.hit, err = parseHit(b.HitCondition); err != nil {
				out[i].Message = err.Error()
				break
			}
			if err := checkExpressions(bp); err != nil {
				out[i].Message = err.Error()
				break
			}
			if _, dup := kept[b.Line]; dup {
				out[i].Message = fmt.Sprintf("line %d has a breakpoint already", b.Line)
				break
			}
			out[i].Verified = true
			kept[b.Line] = bp
		}
	}
	s.breakpoints[path] = kept
	return out, nil
}

// checkExpressions refuses a condition or a logged expression that does
// not parse, before the run meets it.
func checkExpressions(bp *breakpoint) error {
	if bp.condition != "" {
		if err := runtime.CheckExpression(bp.condition); err != nil {
			return fmt.Errorf("the condition does not parse: %v", err)
		}
	}
	for _, m := range logExpr().FindAllStringSubmatch(bp.log, -1) {
		if err := runtime.CheckExpression(m[1]); err != nil {
			return fmt.Errorf("{%s} in the log message does not parse: %v", m[1], err)
		}
	}
	return nil
}

// hit decides, on the run's goroutine, whether bp stops the run where p
// stands: its condition is true (an error in it stops, and says so) and
// its hit count is reached; a logpoint writes its message instead.
func (s *session) hit(bp *breakpoint, p dryrun.Paused) (stop bool) {
	s.evaluating(func() { stop = s.hitting(bp, p) })
	return stop
}

func (s *session) hitting(bp *breakpoint, p dryrun.Paused) bool {
	if bp.condition != "" && p.Eval != nil {
		v, err := p.Eval("!!(" + bp.condition + "\n)")
		if err != nil {
			s.output("stderr", fmt.Sprintf("breakpoint at line %d: its condition %s failed: %v: stopping there\n", bp.line, bp.condition, err))
			return true
		}
		if v != "true" {
			return false
		}
	}
	s.mu.Lock()
	bp.hits++
	count := bp.hits
	s.mu.Unlock()
	if !bp.hit.stops(count) {
		return false
	}
	if bp.log == "" {
		return true
	}
	s.output("console", s.logMessage(bp, p)+"\n")
	return false
}

// logMessage is a logpoint's message with each {expression} replaced by
// its value (a string without its quotes).
func (s *session) logMessage(bp *breakpoint, p dryrun.Paused) string {
	return logExpr().ReplaceAllStringFunc(bp.log, func(m string) string {
		if p.Eval == nil {
			return m
		}
		v, err := p.Eval(m[1 : len(m)-1])
		if err != nil {
			return "<" + err.Error() + ">"
		}
		var str string
		if strings.HasPrefix(v, `"`) && json.Unmarshal([]byte(v), &str) == nil {
			return str
		}
		return v
	})
}

// setFilters turns on the exception filters named.
func (s *session) setFilters(names []string) error {
	on := map[string]bool{}
	for _, n := range names {
		if !slices.ContainsFunc(exceptionFilters, func(f godap.ExceptionBreakpointsFilter) bool { return f.Filter == n }) {
			return fmt.Errorf("restls dap has no exception filter %q: its filters are all, uncaught, apiError and restClientError", n)
		}
		on[n] = true
	}
	s.mu.Lock()
	s.filters = on
	s.mu.Unlock()
	return nil
}

// stopsAt reports whether the exception filters on stop at x.
func (s *session) stopsAt(x dryrun.Exception) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.filters
	switch {
	case f["all"]:
		return true
	case f["uncaught"] && x.Uncaught:
		return true
	case f["apiError"] && x.Kind == dryrun.ExceptionAPI:
		return true
	case f["restClientError"] && x.Kind == dryrun.ExceptionRestClient:
		return true
	}
	return false
}
