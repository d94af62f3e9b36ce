package diff

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
)

// Kinds of a CallDiff.
const (
	Added   = "added"
	Missing = "missing"
	Changed = "changed"
)

// What a Change is about.
const (
	WhatURL    = "url"
	WhatStatus = "status"
	WhatError  = "error"
	WhatHeader = "header"
	WhatBody   = "body"
	WhatResult = "result"
)

// MaxChanges is how many changes one body or result lists; the rest are
// counted in More.
const MaxChanges = 100

// maxDepth is how deep a JSON value is compared path by path; below it a
// changed value is one change at that depth.
const maxDepth = 64

// maxAlign bounds the work of pairing the calls of two runs
// (old calls times new calls); past it they are paired in order.
const maxAlign = 1 << 22

// Volatile are the response headers that change at every answer and say
// nothing about it, and X-Restls-Mock (which fixture answered, absent from
// a live answer); a diff leaves them out, and the hop-by-hop headers
// (restclient.DefaultUnrecordedHeaders), which describe the connection and
// which a recording leaves out.
var Volatile = append([]string{"x-restls-mock"}, restclient.VolatileHeaders...)

// Diff is what changed from an old run to a new one.
type Diff struct {
	// Same reports that nothing below changed.
	Same bool `json:"same"`
	// Calls lists the calls added, missing or changed, in the new run's
	// order (a missing call where it was in the old run).
	Calls []CallDiff `json:"calls"`
	// Result lists the changes of the returned value (by JSON path) or
	// of the uncaught error.
	Result []Change `json:"result"`
	// More counts the result's changes past MaxChanges.
	More int `json:"more,omitempty"`
	// OldCalls and NewCalls are the number of calls of each run.
	OldCalls int `json:"oldCalls"`
	NewCalls int `json:"newCalls"`
}

// CallDiff is one call that differs.
type CallDiff struct {
	// Kind is Added, Missing or Changed.
	Kind string `json:"kind"`
	// Old and New are the call's position in each run, from 1; 0 where
	// it is not in that run.
	Old       int    `json:"old"`
	New       int    `json:"new"`
	ServiceID string `json:"serviceId"`
	Method    string `json:"method"`
	// URL is the new run's (the old run's for a missing call).
	URL     string   `json:"url"`
	Changes []Change `json:"changes,omitempty"`
	// More counts the body's changes past MaxChanges.
	More int `json:"more,omitempty"`
}

// Change is one value that differs. Old and New are JSON values; absent
// (nil) where the value is not there in that run.
type Change struct {
	What string `json:"what"`
	// Path is the header's name, or the JSON path in the body or result
	// ("$" for the whole value, "$.items[0].id").
	Path string          `json:"path,omitempty"`
	Old  json.RawMessage `json:"old,omitempty"`
	New  json.RawMessage `json:"new,omitempty"`
}

// Compare returns what changed from old to new.
func Compare(old, new *dryrun.Result) *Diff {
	d := &Diff{OldCalls: len(old.Calls), NewCalls: len(new.Calls), Calls: []CallDiff{}, Result: []Change{}}
	for _, p := range align(old.Calls, new.Calls) {
		switch {
		case p.old < 0:
			c := new.Calls[p.new]
			d.Calls = append(d.Calls, CallDiff{Kind: Added, New: p.new + 1, ServiceID: c.ServiceID, Method: c.Method, URL: c.URL})
		case p.new < 0:
			c := old.Calls[p.old]
			d.Calls = append(d.Calls, CallDiff{Kind: Missing, Old: p.old + 1, ServiceID: c.ServiceID, Method: c.Method, URL: c.URL})
		default:
			if cd := compareCall(old.Calls[p.old], new.Calls[p.new]); cd != nil {
				cd.Old, cd.New = p.old+1, p.new+1
				d.Calls = append(d.Calls, *cd)
			}
		}
	}
	d.Result = compareError(old.Error, new.Error)
	if old.Error == nil && new.Error == nil {
		var l changeList
		l.values(WhatResult, "$", old.Result, new.Result)
		d.Result, d.More = l.changes, l.more
	}
	if d.Result == nil {
		d.Result = []Change{}
	}
	d.Same = len(d.Calls) == 0 && len(d.Result) == 0
	return d
}

// pair is one step of the alignment: indexes into the old and the new
// calls, -1 for none.
type pair struct{ old, new int }

func callKey(c *restclient.Call) string { return c.ServiceID + "\x00" + strings.ToUpper(c.Method) }

// align pairs the calls of the two runs that have the same serviceId and
// method, keeping their order (a longest common subsequence), so that a
// call added in the middle does not show every later call as changed.
func align(old, new []*restclient.Call) []pair {
	n, m := len(old), len(new)
	if n*m > maxAlign {
		var out []pair
		for i := 0; i < max(n, m); i++ {
			p := pair{-1, -1}
			if i < n {
				p.old = i
			}
			if i < m {
				p.new = i
			}
			if p.old >= 0 && p.new >= 0 && callKey(old[i]) != callKey(new[i]) {
				out = append(out, pair{i, -1}, pair{-1, i})
				continue
			}
			out = append(out, p)
		}
		return out
	}
	// lcs[i][j] is the length of the common subsequence of old[i:], new[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if callKey(old[i]) == callKey(new[j]) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []pair
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case callKey(old[i]) == callKey(new[j]):
			out = append(out, pair{i, j})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, pair{i, -1})
			i++
		default:
			out = append(out, pair{-1, j})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, pair{i, -1})
	}
	for ; j < m; j++ {
		out = append(out, pair{-1, j})
	}
	return out
}

func text(s string) json.RawMessage {
	b, _ := input.TextJSON(s)
	return b
}

// compareCall returns the changes of one call made by both runs, nil when
// there are none.
func compareCall(o, n *restclient.Call) *CallDiff {
	var l changeList
	if o.URL != n.URL {
		l.add(Change{What: WhatURL, Old: text(o.URL), New: text(n.URL)})
	}
	if so, sn := statusText(o), statusText(n); so != sn {
		l.add(Change{What: WhatStatus, Old: rawOrNil(so), New: rawOrNil(sn)})
	}
	if eo, en := callError(o), callError(n); eo != en {
		l.add(Change{What: WhatError, Old: rawOrNil(eo), New: rawOrNil(en)})
	}
	l.headers(o.ResponseHeaders, n.ResponseHeaders)
	l.values(WhatBody, "$", o.ResponseBody, n.ResponseBody)
	if len(l.changes) == 0 {
		return nil
	}
	return &CallDiff{Kind: Changed, ServiceID: n.ServiceID, Method: n.Method, URL: n.URL, Changes: l.changes, More: l.more}
}

func rawOrNil(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return text(s)
}

func statusText(c *restclient.Call) string {
	if c.Status == nil {
		return ""
	}
	return strings.TrimSpace(strconv.Itoa(c.Status.Code) + " " + c.Status.Message)
}

func callError(c *restclient.Call) string {
	if c.ErrorCode == "" {
		return ""
	}
	return c.ErrorCode
}

func compareError(o, n *dryrun.ScriptError) []Change {
	str := func(e *dryrun.ScriptError) string {
		if e == nil {
			return ""
		}
		s := e.Name + ": " + e.Message
		if e.Code != "" {
			s += " (" + e.Code + ")"
		}
		return s
	}
	if so, sn := str(o), str(n); so != sn {
		return []Change{{What: WhatError, Old: rawOrNil(so), New: rawOrNil(sn)}}
	}
	return nil
}

// changeList collects changes up to MaxChanges per value compared.
type changeList struct {
	changes []Change
	more    int
	budget  int
}

func (l *changeList) add(c Change) { l.changes = append(l.changes, c) }

func (l *changeList) headers(o, n restclient.Headers) {
	om, nm := headerMap(o), headerMap(n)
	names := make([]string, 0, len(om)+len(nm))
	for k := range om {
		names = append(names, k)
	}
	for k := range nm {
		if _, ok := om[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		ov, oin := om[k]
		nv, nin := nm[k]
		if oin && nin && ov == nv {
			continue
		}
		c := Change{What: WhatHeader, Path: k}
		if oin {
			c.Old = text(ov)
		}
		if nin {
			c.New = text(nv)
		}
		l.add(c)
	}
}

func headerMap(h restclient.Headers) map[string]string {
	m := make(map[string]string, len(h))
	for _, f := range h {
		k := strings.ToLower(f.Name)
		if slices.Contains(Volatile, k) || slices.Contains(restclient.DefaultUnrecordedHeaders, k) {
			continue
		}
		if v, ok := m[k]; ok {
			m[k] = v + ", " + f.Value
			continue
		}
		m[k] = f.Value
	}
	return m
}

// values compares two JSON values path by path, each side nil when
// absent.
func (l *changeList) values(what, path string, o, n json.RawMessage) {
	o, n = bytes.TrimSpace(o), bytes.TrimSpace(n)
	if bytes.Equal(o, n) {
		return
	}
	ov, oerr := decode(o)
	nv, nerr := decode(n)
	if oerr != nil || nerr != nil {
		l.add(Change{What: what, Path: path, Old: asValue(o), New: asValue(n)})
		return
	}
	l.budget = MaxChanges
	l.walk(what, path, ov, nv, len(o) > 0, len(n) > 0, 0)
}

// asValue is b when it is one JSON value, else its text as a JSON
// string; nil when empty.
func asValue(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	if json.Valid(b) {
		return b
	}
	return text(strings.ToValidUTF8(string(b), "\uFFFD"))
}

func decode(b json.RawMessage) (any, error) {
	if len(b) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one value")
	}
	return v, nil
}

func (l *changeList) emit(what, path string, o, n any, oin, nin bool) {
	if l.budget <= 0 {
		l.more++
		return
	}
	l.budget--
	c := Change{What: what, Path: path}
	if oin {
		c.Old = marshal(o)
	}
	if nin {
		c.New = marshal(n)
	}
	l.add(c)
}

// marshal is v as JSON for a person to read (no HTML escapes).
func marshal(v any) json.RawMessage {
	b, err := input.TextJSON(v)
	if err != nil {
		return text("(unreadable)")
	}
	return b
}

func (l *changeList) walk(what, path string, o, n any, oin, nin bool, depth int) {
	if !oin || !nin || depth >= maxDepth {
		if !oin || !nin || !equal(o, n) {
			l.emit(what, path, o, n, oin, nin)
		}
		return
	}
	switch ov := o.(type) {
	case map[string]any:
		nv, ok := n.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(ov)+len(nv))
		for k := range ov {
			keys = append(keys, k)
		}
		for k := range nv {
			if _, ok := ov[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			a, ain := ov[k]
			b, bin := nv[k]
			l.walk(what, path+member(k), a, b, ain, bin, depth+1)
		}
		return
	case []any:
		nv, ok := n.([]any)
		if !ok {
			break
		}
		for i := 0; i < max(len(ov), len(nv)); i++ {
			var a, b any
			if i < len(ov) {
				a = ov[i]
			}
			if i < len(nv) {
				b = nv[i]
			}
			l.walk(what, path+"["+strconv.Itoa(i)+"]", a, b, i < len(ov), i < len(nv), depth+1)
		}
		return
	}
	if !equal(o, n) {
		l.emit(what, path, o, n, true, true)
	}
}

// equal compares decoded JSON values; numbers by their text.
func equal(a, b any) bool {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for k, x := range av {
			y, ok := bv[k]
			if !ok || !equal(x, y) {
				return false
			}
		}
		return true
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !equal(av[i], bv[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// member is the JSON path step of an object member: .name when it is an
// identifier, ["..."] otherwise.
func member(k string) string {
	ident := k != ""
	for i, r := range k {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			ident = false
			break
		}
	}
	if ident {
		return "." + k
	}
	return "[" + string(text(k)) + "]"
}
