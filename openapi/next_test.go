package openapi

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/restls/restls/internal/openapitest"
)

// referenceNext is Next as it was before candidates were kept on the
// index (NextShared): built for every call, by a map from segment to
// candidate. The differential tests hold NextShared and Next to it.
func referenceNext(a API, method string, segs []Seg) []Next {
	if a.Index == nil || a.Index.paths == nil {
		return nil
	}
	full := append(lit(a.Prefix...), segs...)
	nodes := a.Index.paths.walk(full, nil)
	out := []Next{}
	at := map[string]int{}
	for _, n := range nodes {
		for _, k := range n.kids {
			i, seen := at[k.seg]
			if !seen {
				i = len(out)
				at[k.seg] = i
				out = append(out, Next{Segment: k.seg, Ops: []*Operation{}, Other: []*Operation{}})
			}
			nx := &out[i]
			for r, c := range k.counts {
				if strings.EqualFold(methodRefName(r), method) {
					nx.NOps += int(c)
				} else if c > 0 {
					nx.NOther += int(c)
					if m := methodRefName(r); !containsStr(nx.OtherMethods, m) {
						nx.OtherMethods = append(nx.OtherMethods, m)
					}
				}
			}
			for _, o := range k.below {
				if o.Method == method && len(nx.Ops) < MaxNextOps {
					nx.Ops = append(nx.Ops, o)
				} else if o.Method != method && len(nx.Other) < MaxNextOps {
					nx.Other = append(nx.Other, o)
				}
			}
			if nx.Param == nil && IsParam(k.seg) && len(k.below) > 0 {
				o := k.below[0]
				for j := range o.PathParams {
					if "{"+o.PathParams[j].Name+"}" == k.seg {
						nx.Param = &o.PathParams[j]
					}
				}
			}
		}
	}
	return out
}

func methodRefName(rank int) string {
	if rank < len(methods) {
		return strings.ToUpper(methods[rank])
	}
	return "OTHER"
}

// prefixes returns every prefix of every operation's path after the
// API's prefix, each three ways: literal (a parameter written as some
// text), parameters computed, and everything computed.
func prefixes(api API) [][]Seg {
	seen := map[string]bool{}
	var out [][]Seg
	add := func(segs []Seg) {
		var key strings.Builder
		for _, s := range segs {
			if s.Computed {
				key.WriteString("\x00?")
			} else {
				key.WriteString("\x00" + s.Text)
			}
		}
		if !seen[key.String()] {
			seen[key.String()] = true
			out = append(out, segs)
		}
	}
	for _, o := range api.Index.Ops {
		if len(o.Segments) < len(api.Prefix) || !slices.Equal(o.Segments[:len(api.Prefix)], api.Prefix) {
			continue
		}
		rest := o.Segments[len(api.Prefix):]
		for k := 0; k <= len(rest); k++ {
			var literal, params, all []Seg
			for _, t := range rest[:k] {
				if IsParam(t) {
					literal = append(literal, Seg{Text: "x"})
					params = append(params, Seg{Computed: true})
				} else {
					literal = append(literal, Seg{Text: t})
					params = append(params, Seg{Text: t})
				}
				all = append(all, Seg{Computed: true})
			}
			add(literal)
			add(params)
			add(all)
		}
	}
	add(lit("nowhere"))
	return out
}

var nextMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "", "get", "OTHER"}

// withoutMemo returns the candidates NextShared gave, as values without
// their Memo, and how many had one.
func withoutMemo(list []*Next) ([]Next, int) {
	out := make([]Next, len(list))
	memos := 0
	for i, n := range list {
		out[i] = *n
		if out[i].memo != nil {
			memos++
		}
		out[i].memo = nil
	}
	return out, memos
}

// checkNext holds Next and NextShared (twice: built, then kept) to
// referenceNext on every path prefix of the index.
func checkNext(t *testing.T, api API) {
	t.Helper()
	memos := 0
	for _, segs := range prefixes(api) {
		for _, m := range nextMethods {
			want := referenceNext(api, m, segs)
			if got := api.Next(m, segs); !reflect.DeepEqual(got, want) {
				t.Fatalf("Next(%q, %v) = %+v\nwant %+v", m, segs, got, want)
			}
			first := api.NextShared(m, segs)
			for round, list := range [][]*Next{first, api.NextShared(m, segs)} {
				got, n := withoutMemo(list)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("NextShared(%q, %v) round %d = %+v\nwant %+v", m, segs, round, got, want)
				}
				if n > 0 && (m == "" || m == "get" || m == "OTHER") {
					t.Fatalf("NextShared(%q, %v): %d candidates kept for a method that is not kept", m, segs, n)
				}
				memos += n
			}
			for i := range first {
				if first[i].memo != nil && api.NextShared(m, segs)[i] != first[i] {
					t.Fatalf("NextShared(%q, %v): candidate %d built again", m, segs, i)
				}
			}
		}
	}
	if memos == 0 {
		t.Fatal("no candidate was kept on the index")
	}
}

func TestNextSharedMatchesReference(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"testdata/shop.yaml", "testdata/things31.json", "testdata/merge.yaml"} {
		t.Run(file, func(t *testing.T) {
			idx := load(t, file)
			checkNext(t, API{Index: idx})
			// A service defined by reference: its prefix comes first.
			for _, o := range idx.Ops {
				if len(o.Segments) >= 2 {
					checkNext(t, API{Index: idx, Prefix: o.Segments[:1]})
					break
				}
			}
		})
	}
	t.Run("GitHub", func(t *testing.T) {
		data, err := os.ReadFile(openapitest.GitHub(t))
		if err != nil {
			t.Fatal(err)
		}
		idx, err := Build("api.github.com.json", data)
		if err != nil {
			t.Fatal(err)
		}
		checkNext(t, API{Index: idx})
	})
}

// TestNextMerged covers the candidates of several trie nodes: a computed
// owner and repo reach both /repos/{owner}/{repo} and
// /repos/{template_owner}/{template_repo}, whose kids "generate" and a
// parameter exist under both.
func TestNextMerged(t *testing.T) {
	t.Parallel()
	api := API{Index: load(t, "testdata/merge.yaml")}
	segs := lit("repos", "?", "?")
	var got []string
	kept := map[string]bool{}
	for _, n := range api.NextShared("GET", segs) {
		got = append(got, n.Segment)
		kept[n.Segment] = n.Memo() != nil
	}
	want := []string{"back\\slash\"q", "files", "generate", "issues", "it's", "raw.{ext}", "{sha}", "{ref}"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("segments %q, want %q", got, want)
	}
	if kept["generate"] || !kept["issues"] || !kept["{sha}"] || !kept["{ref}"] {
		t.Errorf("kept on the index: %v (want all but the merged generate)", kept)
	}
}

// TestNextSharedConcurrent builds the kept candidates from many goroutines
// at once (go test -race): every caller gets the same candidate.
func TestNextSharedConcurrent(t *testing.T) {
	t.Parallel()
	api := API{Index: load(t, "testdata/merge.yaml")}
	segs := prefixes(api)
	const workers = 8
	results := make([][][]*Next, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, s := range segs {
				list := api.NextShared("GET", s)
				for _, n := range list {
					if m := n.Memo(); m != nil {
						m.Keep(n.Segment)
						if v := m.Load(); v != n.Segment {
							t.Errorf("memo of %q holds %v", n.Segment, v)
						}
					}
				}
				results[w] = append(results[w], list)
			}
		}()
	}
	wg.Wait()
	for w := 1; w < workers; w++ {
		for i := range segs {
			for j, n := range results[w][i] {
				if n.Memo() != nil && n != results[0][i][j] {
					t.Fatalf("worker %d got another candidate for %v %q", w, segs[i], n.Segment)
				}
			}
		}
	}
}
