package main

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// startupAllocs bounds what package initialisation allocates in one
// restls process (GODEBUG=inittrace=1's allocs, summed over packages; the
// test binary's test-only packages included). Every restls command and
// every dry run's child pays it before doing anything: the JSON Schema
// library's meta-schemas compiled at init were 21,000 of 28,000
// allocations and 22% of a trivial restls run's CPU
// (third_party/jsonschema/RESTLS.md). About 7,000 now.
const startupAllocs = 10_000

// initLine is one line of GODEBUG=inittrace=1.
var initLine = regexp.MustCompile(`^init (\S+) @[^,]+, [^,]+ clock, (\d+) bytes, (\d+) allocs$`)

// TestStartupAllocations: package initialisation in a restls process
// allocates at most startupAllocs; the heaviest packages are named when
// it does not.
func TestStartupAllocations(t *testing.T) {
	t.Parallel()
	cmd := restlsCommand(t, "version")
	cmd.Env = append(cmd.Env, "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("restls version: %v\n%s", err, stderr.String())
	}
	type pkg struct {
		name          string
		bytes, allocs int
	}
	var pkgs []pkg
	total := 0
	for line := range strings.Lines(stderr.String()) {
		m := initLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		b, _ := strconv.Atoi(m[2])
		a, _ := strconv.Atoi(m[3])
		pkgs = append(pkgs, pkg{m[1], b, a})
		total += a
	}
	if len(pkgs) < 50 {
		t.Fatalf("%d init lines from GODEBUG=inittrace=1; want one a package:\n%s", len(pkgs), stderr.String())
	}
	if total > startupAllocs {
		slices.SortFunc(pkgs, func(a, b pkg) int { return b.allocs - a.allocs })
		var top strings.Builder
		for _, p := range pkgs[:5] {
			fmt.Fprintf(&top, "\n\t%s: %d allocations, %d bytes", p.name, p.allocs, p.bytes)
		}
		t.Errorf("package initialisation allocates %d times in a restls process, want at most %d; the most:%s", total, startupAllocs, top.String())
	}
}

// TestStartupWorkOfRunPackages: every restls process links the packages of
// dry runs and of debugging, and runs their package initialisation, the
// language server too, which does neither itself (runs go to child
// processes). What they build when the process starts touches their code
// and the pages of the binary around it, and a language server keeps
// those pages resident for its whole life (issue 34: compiling the
// response builder when the process started kept some 0.3 MB more of the
// binary resident in the language server). So they build what they need
// on first use: a few hundred bytes at start at most.
func TestStartupWorkOfRunPackages(t *testing.T) {
	t.Parallel()
	budget := map[string]int{ // bytes allocated by the package's initialisation
		"github.com/restls/restls/runtime": 1024,
		"github.com/restls/restls/dap":     1024,
	}
	cmd := restlsCommand(t, "version")
	cmd.Env = append(cmd.Env, "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("restls version: %v\n%s", err, stderr.String())
	}
	for line := range strings.Lines(stderr.String()) {
		m := initLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		max, ok := budget[m[1]]
		if !ok {
			continue
		}
		if n, _ := strconv.Atoi(m[2]); n > max {
			t.Errorf("%s allocates %d bytes when restls starts, want at most %d: build what only runs use on first use (sync.OnceValue)", m[1], n, max)
		}
	}
}
