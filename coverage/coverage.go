package coverage

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"

	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
)

// Collector gathers the coverage of many runs, of many scripts, from
// many goroutines.
type Collector struct {
	mu      sync.Mutex
	scripts map[key]*script
	order   []key
}

// key names a script's text: a script run with two texts (an editor's
// unsaved one and the file) is covered twice.
type key struct{ name, text string }

// script is what the runs of one script covered so far.
type script struct {
	name string
	m    *scriptrt.CoverageMap
	err  error
	// index maps a statement's place to its index in m.Statements.
	index map[scriptrt.Position]int
	stmts []int
	arms  [][]int
	sites []*site
	// other are the calls made from no call site of m (through a name of
	// the script's own), by where they were made.
	other map[scriptrt.Position]*site
}

type site struct {
	line, column int
	method       string
	services     map[string]bool
	outcomes     map[string]int
}

// New returns an empty Collector.
func New() *Collector { return &Collector{scripts: map[key]*script{}} }

// Observer is the observer of one run of the script name with text: give
// it to the run (engine.Request.Observer, with Statements). What it saw
// is merged into c when the run is done. A script that does not parse
// is reported with its error and nothing covered.
func (c *Collector) Observer(name, text string) dryrun.CoverageObserver {
	c.mu.Lock()
	k := key{name, text}
	s := c.scripts[k]
	if s == nil {
		s = &script{name: name}
		s.m, s.err = scriptrt.NewCoverageMap(text)
		if s.m == nil {
			s.m = &scriptrt.CoverageMap{}
		}
		s.index = make(map[scriptrt.Position]int, len(s.m.Statements))
		for i, p := range s.m.Statements {
			s.index[p] = i
		}
		s.stmts = make([]int, len(s.m.Statements))
		s.arms = make([][]int, len(s.m.Branches))
		for i, b := range s.m.Branches {
			s.arms[i] = make([]int, b.Arms)
		}
		for _, cs := range s.m.CallSites {
			st := &site{line: cs.Line, column: cs.Column, method: cs.Method}
			if cs.ServiceID != "" {
				st.services = map[string]bool{cs.ServiceID: true}
			}
			s.sites = append(s.sites, st)
		}
		c.scripts[k] = s
		c.order = append(c.order, k)
	}
	c.mu.Unlock()
	return &observer{c: c, s: s, stmts: make([]int, len(s.stmts)), arms: make([][]int, len(s.arms)), site: map[int]scriptrt.Position{}}
}

// observer is one run's: it counts without a lock, and merges at Done.
type observer struct {
	c     *Collector
	s     *script
	stmts []int
	arms  [][]int
	// site is where each call was made; calls its answered calls.
	site  map[int]scriptrt.Position
	calls []call
	done  bool
}

type call struct {
	at              scriptrt.Position
	service, method string
	outcome         string
}

// Statement is not called for a coverage run (it counts in place), but
// counts if it is.
func (o *observer) Statement(line, column int) {
	if i, ok := o.s.index[scriptrt.Position{Line: line, Column: column}]; ok {
		o.stmts[i]++
	}
}

func (o *observer) Covered(c dryrun.Coverage) {
	for _, st := range c.Statements {
		if i, ok := o.s.index[scriptrt.Position{Line: st.Line, Column: st.Column}]; ok {
			o.stmts[i] += st.Count
		}
	}
	for id, arms := range c.Arms {
		if id >= len(o.arms) {
			break
		}
		if o.arms[id] == nil {
			o.arms[id] = make([]int, len(o.s.arms[id]))
		}
		for j, n := range arms {
			if j < len(o.arms[id]) {
				o.arms[id][j] += n
			}
		}
	}
}

func (o *observer) CallSite(i, line, column int) {
	o.site[i] = scriptrt.Position{Line: line, Column: column}
}

func (o *observer) CallMade(int, *restclient.Call) {}

func (o *observer) CallAnswered(i int, c *restclient.Call) {
	if c == nil {
		return
	}
	o.calls = append(o.calls, call{at: o.site[i], service: c.ServiceID, method: c.Method, outcome: Outcome(c)})
}

func (o *observer) Log(dryrun.LogEntry) {}

// Done merges the run into the collector (once: a run in this process
// may be done twice, by the runtime and by the engine).
func (o *observer) Done(*dryrun.Result) {
	if o.done {
		return
	}
	o.done = true
	c, s := o.c, o.s
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, n := range o.stmts {
		s.stmts[i] += n
	}
	for i, arms := range o.arms {
		for j, n := range arms {
			s.arms[i][j] += n
		}
	}
	for _, cl := range o.calls {
		st := s.siteAt(cl.at)
		if st.services == nil {
			st.services = map[string]bool{}
		}
		if st.outcomes == nil {
			st.outcomes = map[string]int{}
		}
		st.services[cl.service] = true
		st.outcomes[cl.outcome]++
	}
}

// siteAt is the call site a call made at p belongs to.
func (s *script) siteAt(p scriptrt.Position) *site {
	if i, ok := s.m.CallSiteAt(p.Line, p.Column); ok {
		return s.sites[i]
	}
	if s.other == nil {
		s.other = map[scriptrt.Position]*site{}
	}
	st := s.other[p]
	if st == nil {
		st = &site{line: p.Line, column: p.Column}
		s.other[p] = st
	}
	return st
}

// Outcome is what a call's answer is as coverage counts it: "2XX" for
// a status the contract returns, the status ("404") for one it throws,
// the RestClientError code ("read-timeout") for a call that got no
// status.
func Outcome(c *restclient.Call) string {
	switch {
	case c.ErrorCode != "" && (c.Status == nil || c.Status.Code == 0):
		return c.ErrorCode
	case c.Status == nil:
		return "no-answer"
	case c.Status.Code >= 200 && c.Status.Code < 300:
		return "2XX"
	}
	return strconv.Itoa(c.Status.Code)
}

// Report is the coverage of every script the collector saw, in the
// order they were first run.
type Report struct {
	Scripts []*Script `json:"scripts"`
	// Lines and Branches total every script's.
	Lines    Ratio `json:"lines"`
	Branches Ratio `json:"branches"`
}

// Ratio is how many of Found were hit.
type Ratio struct {
	Hit   int `json:"hit"`
	Found int `json:"found"`
}

// Percent is Hit of Found in percent; 100 when nothing was found.
func (r Ratio) Percent() float64 {
	if r.Found == 0 {
		return 100
	}
	return 100 * float64(r.Hit) / float64(r.Found)
}

func (r Ratio) String() string {
	return fmt.Sprintf("%d/%d (%s)", r.Hit, r.Found, percent(r.Percent()))
}

func percent(p float64) string {
	s := strconv.FormatFloat(p, 'f', 1, 64)
	if s == "100.0" && p < 100 {
		s = "99.9" // never round a miss up to complete
	}
	return s + "%"
}

// Script is one script's coverage.
type Script struct {
	// Name is the script as the tests name it.
	Name string `json:"script"`
	// Error says why the script could not be mapped (it does not parse).
	Error     string   `json:"error,omitempty"`
	Lines     []Line   `json:"lineHits"`
	Branches  []Branch `json:"branchHits"`
	Calls     []Site   `json:"callSites"`
	LineSum   Ratio    `json:"lines"`
	BranchSum Ratio    `json:"branches"`
}

// Line is a line that has a statement, and how often a statement
// starting on it ran (the most run one's count).
type Line struct {
	Line int `json:"line"`
	Hits int `json:"hits"`
}

// Branch is a branch point and how often each arm ran.
type Branch struct {
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Kind   string `json:"kind"`
	Taken  []int  `json:"taken"`
}

// Site is an api.rest.v1 call site: where, its method, the serviceIds
// its calls named, and each outcome the tests exercised with how often,
// in order (2XX, statuses, then RestClientError codes).
type Site struct {
	Line     int        `json:"line"`
	Column   int        `json:"column"`
	Method   string     `json:"method"`
	Services []string   `json:"serviceIds"`
	Outcomes []Outcomes `json:"outcomes"`
}

// Outcomes is one outcome at a call site and how many calls had it.
type Outcomes struct {
	Outcome string `json:"outcome"`
	Calls   int    `json:"calls"`
}

// Report is what the collector gathered so far.
func (c *Collector) Report() *Report {
	c.mu.Lock()
	defer c.mu.Unlock()
	rep := &Report{Scripts: []*Script{}}
	for _, k := range c.order {
		s := c.scripts[k]
		out := &Script{Name: s.name, Lines: []Line{}, Branches: []Branch{}, Calls: []Site{}}
		if s.err != nil {
			out.Error = s.err.Error()
		}
		hits := map[int]int{}
		for i, p := range s.m.Statements {
			if n, ok := hits[p.Line]; !ok || s.stmts[i] > n {
				hits[p.Line] = s.stmts[i]
			}
		}
		for l, n := range hits {
			out.Lines = append(out.Lines, Line{l, n})
			out.LineSum.Found++
			if n > 0 {
				out.LineSum.Hit++
			}
		}
		sort.Slice(out.Lines, func(i, j int) bool { return out.Lines[i].Line < out.Lines[j].Line })
		for i, b := range s.m.Branches {
			out.Branches = append(out.Branches, Branch{Line: b.Line, Column: b.Column, Kind: b.Kind, Taken: slices.Clone(s.arms[i])})
			for _, n := range s.arms[i] {
				out.BranchSum.Found++
				if n > 0 {
					out.BranchSum.Hit++
				}
			}
		}
		sites := slices.Clone(s.sites)
		for _, st := range s.other {
			sites = append(sites, st)
		}
		sort.SliceStable(sites, func(i, j int) bool {
			if sites[i].line != sites[j].line {
				return sites[i].line < sites[j].line
			}
			return sites[i].column < sites[j].column
		})
		for _, st := range sites {
			out.Calls = append(out.Calls, st.report())
		}
		rep.Lines.Hit += out.LineSum.Hit
		rep.Lines.Found += out.LineSum.Found
		rep.Branches.Hit += out.BranchSum.Hit
		rep.Branches.Found += out.BranchSum.Found
		rep.Scripts = append(rep.Scripts, out)
	}
	return rep
}

func (st *site) report() Site {
	out := Site{Line: st.line, Column: st.column, Method: st.method, Services: []string{}, Outcomes: []Outcomes{}}
	for s := range st.services {
		out.Services = append(out.Services, s)
	}
	sort.Strings(out.Services)
	for o, n := range st.outcomes {
		out.Outcomes = append(out.Outcomes, Outcomes{o, n})
	}
	sort.Slice(out.Outcomes, func(i, j int) bool { return outcomeLess(out.Outcomes[i].Outcome, out.Outcomes[j].Outcome) })
	return out
}

// outcomeLess orders 2XX first, then statuses by number, then codes by
// name.
func outcomeLess(a, b string) bool {
	rank := func(s string) (int, int) {
		if s == "2XX" {
			return 0, 0
		}
		if n, err := strconv.Atoi(s); err == nil {
			return 1, n
		}
		return 2, 0
	}
	ra, na := rank(a)
	rb, nb := rank(b)
	if ra != rb {
		return ra < rb
	}
	if na != nb {
		return na < nb
	}
	return a < b
}
