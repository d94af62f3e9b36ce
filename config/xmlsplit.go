package config

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// xmlRunSize is about how many bytes of a large file one part holds: small
// enough that the parts keep both cores busy, large enough that the
// prolog each part repeats costs nothing. Why 64 KB and not halves is in
// docs/decisions.md (Registry), measured with
// BenchmarkServeInitializeToFirstCompletion (cmd/restls) and
// BenchmarkStageXML (config).
const xmlRunSize = 64 << 10

// xmlRun is one part of a large file: a run of the root's children.
type xmlRun struct {
	from, to int // the children's bytes; to is -1 for the last run, which ends as the file does
	first    int // the number of the run's first child
	count    int // how many children the run holds
}

// runs cuts the root's children into runs of about size bytes, by the
// scan. A file of less than two runs gets none: it is read whole.
func (xp *xmlPositions) runs(size int) []xmlRun {
	var runs []xmlRun
	for j, num := range xp.top {
		off := int(xp.start[num])
		if j > 0 && off-runs[len(runs)-1].from < size {
			runs[len(runs)-1].count++
			continue
		}
		if j == 0 {
			off = xp.rootEnd // the first run keeps what precedes the first child
		} else {
			runs[len(runs)-1].to = off
		}
		runs = append(runs, xmlRun{from: off, to: -1, first: num, count: 1})
	}
	if len(runs) < 2 {
		return nil
	}
	return runs
}

// parseServiceRuns reads a large file in parts, one run of the root's
// children each: the prolog and the root's start tag, the run, and the
// root's end tag make one document for etree. Parts are parsed and read
// on up to GOMAXPROCS goroutines, each part dropped once read, so the
// file's whole tree never exists at once; the results are joined in
// document order. It reports false when a part fails to parse, and the
// caller reads the file whole: a part parses only when its run is really
// a run of the root's children (a '<' inside a comment, CDATA, an
// attribute value or a grandchild leaves it unterminated or its end tag
// mismatched), so reading in parts cannot change a result.
func parseServiceRuns(file string, data []byte, xp *xmlPositions, runs []xmlRun) (*parsed, bool) {
	head := data[:xp.rootEnd] // the prolog and the root's start tag
	end := "</" + xp.rootName + ">"
	// The runs' api entries go straight into one slice, each run from
	// where the previous run's children end (a run holds as many children
	// as the scan counted, or the file is read whole); they are closed up
	// below.
	total := 0
	for _, r := range runs {
		total += r.count
	}
	all := make([]rawAPI, total)
	subs := make([]parsed, len(runs))
	off := 0
	for k, r := range runs {
		subs[k] = parsed{file: file, apis: all[off : off : off+r.count]}
		off += r.count
	}
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(runs)) {
		wg.Go(func() {
			for !failed.Load() {
				k := int(next.Add(1) - 1)
				if k >= len(runs) {
					return
				}
				r := runs[k]
				body := io.MultiReader(bytes.NewReader(head), bytes.NewReader(data[r.from:]))
				if r.to >= 0 {
					body = io.MultiReader(bytes.NewReader(head), bytes.NewReader(data[r.from:r.to]), strings.NewReader(end))
				}
				root, err := readXML(body)
				if err != nil || root == nil || root.Tag != "scriptservice" || childElements(root) != r.count {
					// The whole read reports what is wrong, or reads
					// right what the scan misjudged.
					failed.Store(true)
					return
				}
				serviceElements(&subs[k], xp, node{root, r.first - 1})
			}
		})
	}
	wg.Wait()
	if failed.Load() {
		return nil, false
	}
	p := &parsed{file: file, apis: all[:0]}
	for k := range subs {
		p.apis = append(p.apis, subs[k].apis...) // within all, entries only move down
		p.oauths = append(p.oauths, subs[k].oauths...)
		p.diags = append(p.diags, subs[k].diags...)
	}
	return p, true
}
