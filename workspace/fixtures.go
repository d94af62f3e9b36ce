package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/restls/restls/input"
)

// MockSuffixes are the names of the fixture file beside a script, in the
// order a dry run looks for them: orders.js has orders.mock.yaml, else
// orders.mock.json. This is the one home of fixture naming: the editor's
// dry runs and restls/documentInfo, recorded answers, and restls check
// ask here.
var MockSuffixes = []string{".mock.yaml", ".mock.json"}

// TestFileSuffix ends the name of every test file of restls test
// (scripttest.Suffix, which cmd/restls's TestFileNamesAgree holds to
// this): the editor's test lenses and restls check's fixture checks ask
// here.
const TestFileSuffix = ".test.yaml"

// IsTestFile reports whether path names a test file, as restls test
// finds them: by the exact suffix.
func IsTestFile(path string) bool {
	return len(path) > len(TestFileSuffix) && strings.HasSuffix(path, TestFileSuffix)
}

// MockCandidates are the fixture files script may have, in MockSuffixes'
// order, whether or not they exist.
func MockCandidates(script string) []string {
	base := strings.TrimSuffix(script, filepath.Ext(script))
	out := make([]string, len(MockSuffixes))
	for i, s := range MockSuffixes {
		out[i] = base + s
	}
	return out
}

// MockFileBeside is the fixture file beside script that exists (the first
// of MockSuffixes), or "" when there is none. A file that is a link out
// of the script's repository (FixtureRoot) is none: a cloned repository
// cannot make a dry run read a file of the machine as its fixtures.
func MockFileBeside(script string) string {
	root := FixtureRoot(script)
	for _, c := range MockCandidates(script) {
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
			if _, err := input.Inside(root, c, input.Fixtures); err == nil {
				return c
			}
		}
	}
	return ""
}

// FixtureWritable says whether file, the fixture file of script
// (FixtureFile), may be created or replaced: nothing is there, or it
// stays inside FixtureRoot with its links followed; a link out or a link
// to nothing is refused (input.WritableIn). Record "auto", "Add a
// fixture for this call" and restls fixtures generate all keep it.
func FixtureWritable(script, file string) error {
	return input.WritableIn(FixtureRoot(script), file, input.Fixtures)
}

// FixtureRoot is the directory the fixture files beside script must stay
// in, their links followed: the top of the script's git repository, else
// the script's own directory.
func FixtureRoot(script string) string {
	if r := input.RepoRoot(script); r != "" {
		return r
	}
	return filepath.Dir(script)
}

// Recorded finds the fixture files beside scripts (*.mock.yaml,
// *.mock.json: MockSuffixes) as recorded answers, once per directory
// until Forget. The zero value finds none: set Allowed first.
type Recorded struct {
	// Allowed says the surface may read files beside its scripts (an
	// editor session may; a designer session that names no files may
	// not). Set it before the first Beside.
	Allowed bool

	mu   sync.Mutex
	dirs map[string][]APISource
}

// Beside returns the recorded answers beside the script at path.
func (r *Recorded) Beside(script string) []APISource {
	if script == "" || !r.Allowed {
		return nil
	}
	dir := filepath.Dir(script)
	r.mu.Lock()
	src, ok := r.dirs[dir]
	r.mu.Unlock()
	if ok {
		return src
	}
	// Listed, not globbed: the directory's own name may hold "*" or "["
	// (filepath.Glob would expand them, through every directory they
	// match, or fail on them). Names only, unsorted: restls check asks
	// for every directory it walks (when its walk has not listed them
	// already: Listed).
	var names []string
	if d, err := os.Open(dir); err == nil {
		names, _ = d.Readdirnames(-1)
		d.Close()
	}
	src = besideIn(dir, names)
	r.mu.Lock()
	if r.dirs == nil {
		r.dirs = map[string][]APISource{}
	}
	r.dirs[dir] = src
	r.mu.Unlock()
	return src
}

// Listed is what a walk listed in dir (absolute, as the directory of a
// script Beside is asked for): Beside takes the fixture files from these
// names instead of listing dir again. restls check's walk lists every
// directory it checks scripts in (a second listing of each was about 1%
// of checking make bench-oxlint's corpus).
func (r *Recorded) Listed(dir string, names []string) {
	if !r.Allowed {
		return
	}
	src := besideIn(dir, names)
	r.mu.Lock()
	if r.dirs == nil {
		r.dirs = map[string][]APISource{}
	}
	r.dirs[dir] = src
	r.mu.Unlock()
}

// besideIn are the fixture files among the names of dir: in MockSuffixes'
// order, each suffix's by name, with the repository's top looked for
// only when there is one (most directories of scripts hold none).
func besideIn(dir string, names []string) []APISource {
	src := []APISource{}
	var root string
	for _, suffix := range MockSuffixes {
		var found []string
		for _, name := range names {
			if strings.HasSuffix(name, suffix) {
				found = append(found, name)
			}
		}
		if len(found) == 0 {
			continue
		}
		slices.Sort(found)
		if root == "" {
			root = FixtureRoot(filepath.Join(dir, found[0]))
		}
		for _, name := range found {
			src = append(src, APISource{Location: filepath.Join(dir, name), Recorded: true, Root: root})
		}
	}
	return src
}

// Forget makes the next Beside look again (after a reload).
func (r *Recorded) Forget() {
	r.mu.Lock()
	r.dirs = nil
	r.mu.Unlock()
}
