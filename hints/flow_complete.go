package hints

import "slices"

// Completion from the flow of answer types (flow.go): the fields after
// `x.` where x holds an answer, a part of one or an exception, however
// it got there.

// chainHead is where a chain that starts at a ')' or ']' starts: the end
// of the ')' (a call's result ends there: `f().body.`,
// `a.find(...).x.`) or ']' (an element read with a computed index:
// `a[i + 1].x.`), and for a ')' the end of the token before it (a name
// read inside parentheses ends there: `(r.body).x.`); 0 for none.
type chainHead struct{ close, inner int }

// flowChain reads `root.a[0].b.` back from the '.' at back-token i: the
// variable and the steps after it ("a", "[]", "b"). A chain that starts
// at a ')' has no root but a head.
func (s *scanResult) flowChain(i int) (root string, head chainHead, steps []string, ok bool) {
	if !s.isPunct(i, '.') {
		return "", chainHead{}, nil, false
	}
	var rev []string
	i++
	for len(rev) < flowMaxDepth {
		t, ok := s.tok(i)
		if !ok {
			return "", chainHead{}, nil, false
		}
		bracket := false
		switch {
		case t.kind == tkIdent:
			rev = append(rev, s.tokText(t))
			i++
		case t.kind == tkPunct && t.ch == ']' && s.isPunct(i+2, '['):
			step := "[]"
			if q, ok := s.tok(i + 1); ok && q.kind == tkString && q.end-q.start >= 2 {
				step = s.text[q.start+1 : q.end-1] // r.body["a-b"]
			}
			rev = append(rev, step)
			i += 3
			bracket = true
		case t.kind == tkPunct && t.ch == ']':
			// An index that is not one token (`a[i + 1]`): the element
			// read that ends there.
			slices.Reverse(rev)
			return "", chainHead{close: t.end}, rev, true
		case t.kind == tkPunct && t.ch == ')':
			head = chainHead{close: t.end}
			if p, ok := s.tok(i + 1); ok {
				head.inner = p.end
			}
			slices.Reverse(rev)
			return "", head, rev, true
		default:
			return "", chainHead{}, nil, false
		}
		if s.isPunct(i, '.') {
			i++
			continue
		}
		if bracket {
			if p, ok := s.tok(i); ok && (p.kind == tkIdent || p.kind == tkPunct && p.ch == ']') {
				continue // body[0], a[0][1]
			}
		}
		break
	}
	if len(rev) == 0 {
		return "", chainHead{}, nil, false
	}
	slices.Reverse(rev)
	if rev[0] == "[]" {
		return "", chainHead{}, nil, false
	}
	return rev[0], chainHead{}, rev[1:], true
}

// flowItems completes after `x.` (and `x.a[0].`) where x holds an answer,
// a part of one or an exception, however it got there; ok false when
// the flow knows nothing of x.
func flowItems(dst []CompletionItem, doc *Document, s *scanResult, used int, rng Range, disp Display) (items []CompletionItem, incomplete, ok bool) {
	if doc == nil || doc.text != s.text {
		return nil, false, false
	}
	root, head, steps, ok := s.flowChain(used)
	if !ok {
		return nil, false, false
	}
	// A document not analysed yet is analysed now only where answers
	// can be typed (a description or recorded answers), as Diagnose does.
	describe := disp.APIs.Len() > 0
	var res *flowResult
	var t tset
	if root != "" {
		var at int
		res, at = doc.flowForCompletion(rng.Start, describe)
		t, ok = res.lookup(root, at)
	} else {
		// No name starts the chain: the result of the call that ends at
		// the ')', else (no call ends there: parentheses) the name read
		// before it.
		var at int
		res, at = doc.flowForCompletion(head.close, describe)
		t, ok = res.resultAt(at)
		if !ok && head.inner > 0 {
			_, at = doc.flowForCompletion(head.inner, describe)
			t, ok = res.readEndingAt(at)
		}
	}
	if !ok || !values(t) {
		return nil, false, false
	}
	var vals []fval
	for _, x := range t.ts {
		if v, ok := res.resolve(x, steps, disp); ok && v.missing == "" {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nil, false, false
	}
	items = dst
	seen := map[string]bool{}
	addFields := func(fs []field) {
		for _, it := range fieldItems(fs, rng) {
			if !seen[it.Label] {
				seen[it.Label] = true
				items = append(items, it)
			}
		}
	}
	for _, v := range vals {
		switch v.kind {
		case vResponse:
			addFields(responseFields)
		case vException:
			addFields(exceptionFields)
		case vStatus:
			addFields(statusFields)
		case vBody:
			if v.schema == nil || len(v.schema.Props) == 0 {
				continue
			}
			t := bodyTextOf(v.idx, v.schema, v.source(disp))
			pick, capped := pickProps(v.schema.Props, s.text[rng.Start:s.offset])
			n := len(v.schema.Props)
			if capped {
				n, incomplete = len(pick), true
			}
			for k := range n {
				i := k
				if capped {
					i = pick[k]
				}
				name := v.schema.Props[i].Name
				if seen[name] {
					continue
				}
				seen[name] = true
				items = append(items, CompletionItem{Label: name, Kind: ItemField, Detail: t.detail[i],
					Documentation: t.doc[i], InsertText: name, Replace: rng})
			}
		}
	}
	if len(items) == len(dst) {
		return nil, false, false
	}
	return items, incomplete, true
}
