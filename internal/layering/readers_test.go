package layering

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// readers are the calls that read a file (or a stream of unknown size)
// whole, by import path: outside package input, which bounds them, each
// use must be on readersAllowed.
var readers = map[string][]string{
	"os":        {"ReadFile", "Open", "OpenFile"},
	"io":        {"ReadAll"},
	"io/ioutil": {"ReadFile", "ReadAll"},
}

// matchers are the glob matchers of the standard library: outside package
// input, whose one matcher is linear (input/glob.go), each use must be on
// matchersAllowed. path.Match and filepath.Match are linear for one name
// but not the "**" walks built on them (issue 23, findings 2 and 6), and
// filepath.Glob reads a directory name as a pattern.
var matchers = map[string][]string{
	"path":          {"Match"},
	"path/filepath": {"Match", "Glob"},
}

// matchersAllowed are the uses of matchers outside package input, each
// with why: none today.
var matchersAllowed = map[string]string{}

// readersAllowed are the uses of readers outside package input, by file
// and call, each with why it needs no bound from input: a path restls
// chose itself, or a stream bounded where it is read. Keep it short: a
// file a user, a setting, a repository or a test file names is read with
// input.ReadFile or input.ReadFileIn.
var readersAllowed = map[string]string{
	"runtime/memory.go: os.ReadFile":                 "/proc/self/statm and /proc/self/status, the process's own memory",
	"runtime/isolate/supervise.go: os.ReadFile":      "/proc/PID/statm of the dry-run child it started",
	"runtime/isolate/stale.go: os.Open":              "the temporary directory, opened to list its names in batches (no file content is read)",
	"workspace/fixtures.go: os.Open":                 "a script's directory, opened to list its names for the fixture files beside it (no file content is read)",
	"cmd/restls/serve.go: os.OpenFile":               "the server's own log file (--log-file), opened for appending, never read",
	"runtime/restclient/client.go: io.ReadAll":       "HTTP response bodies, under io.LimitReader(--max-response-bytes)",
	"runtime/restclient/oauth.go: io.ReadAll":        "the token request's own form body, built by restls",
	"openapi/load.go: io.ReadAll":                    "a description fetched by URL, under io.LimitReader(MaxSize)",
	"remote/remote.go: io.ReadAll":                   "the registry backend's answer, under io.LimitReader(maxBody)",
	"runtime/dryrun/history/history.go: os.OpenFile": "creates a history entry (O_EXCL, 0600), never read: entries are read with input.ReadFile",
	"workspace/init.go: os.OpenFile":                 "creates restls.yaml (O_EXCL: never over an existing file), never read",
	"internal/goldentest/golden.go: os.ReadFile":     "the golden files of the module's own tests (a test-only package)",
	"internal/restlstest/restlstest.go: io.ReadAll":  "the answer of a restls the test started (a test-only package)",
}

// TestReaders is issue 23's "nothing else may call os.ReadFile on such
// paths": every non-test Go file of the module outside package input
// reads files only through input, or from readersAllowed.
func TestReaders(t *testing.T) {
	root, _ := moduleRoot(t)
	for _, msg := range checkReaders(t, root, "input", readCalls, readersAllowed) {
		t.Error(msg)
	}
}

// TestMatchers is the same rule for glob matching: one matcher, input's.
func TestMatchers(t *testing.T) {
	root, _ := moduleRoot(t)
	for _, msg := range checkReaders(t, root, "input", matchCalls, matchersAllowed) {
		t.Error(msg)
	}
}

// forbidden is a set of calls that only package input may make, with
// what to use instead.
type forbidden struct {
	calls  map[string][]string // by import path
	advice string              // what to call instead
	list   string              // the allow-list's name, for messages
}

var (
	readCalls  = forbidden{readers, "read through input.ReadFile (or input.ReadFileIn for a file a repository names)", "readersAllowed"}
	matchCalls = forbidden{matchers, "match through input.FileGlob, input.PathGlob or input.ParseIgnorePattern", "matchersAllowed"}
)

// TestCheckReaders runs the checker on a small module, so a broken one
// cannot pass the real one silently.
func TestCheckReaders(t *testing.T) {
	files := map[string]string{
		"input/read.go":   "package input\nimport \"os\"\nfunc R(p string) ([]byte, error) { return os.ReadFile(p) }\n",
		"a/a.go":          "package a\nimport \"os\"\nfunc R(p string) ([]byte, error) { return os.ReadFile(p) }\n",
		"a/a_test.go":     "package a\nimport \"os\"\nvar _, _ = os.ReadFile(\"x\")\n",
		"b/b.go":          "package b\nimport (\n\tgoos \"os\"\n\t\"io\"\n)\nvar read = goos.ReadFile\nfunc R(r io.Reader) ([]byte, error) { f, _ := goos.Open(\"x\"); _ = f; return io.ReadAll(r) }\n",
		"c/c.go":          "package c\nimport \"os\"\nfunc W() { _, _ = os.Create(\"x\"); _ = os.Getenv(\"x\") }\n",
		"d/d.go":          "package d\nimport \"os\"\nvar _, _ = os.ReadFile(\"/proc/self/statm\")\n",
		"b/testdata/x.go": "package x\nimport \"os\"\nvar _, _ = os.ReadFile(\"x\")\n",
		"f/go.mod":        "module f\n",
		"f/f.go":          "package f\nimport \"os\"\nvar _, _ = os.ReadFile(\"x\")\n",
	}
	dir := t.TempDir()
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := checkReaders(t, dir, "input", readCalls, map[string]string{
		"d/d.go: os.ReadFile": "the process's own memory",
		"e/e.go: os.Open":     "a file that went away",
	})
	want := []string{
		"a/a.go:3: os.ReadFile outside package input: read through input.ReadFile (or input.ReadFileIn for a file a repository names), or add the call to readersAllowed in internal/layering/readers_test.go with the reason it needs no bound",
		"b/b.go:6: os.ReadFile outside package input: read through input.ReadFile (or input.ReadFileIn for a file a repository names), or add the call to readersAllowed in internal/layering/readers_test.go with the reason it needs no bound",
		"b/b.go:7: os.Open outside package input: read through input.ReadFile (or input.ReadFileIn for a file a repository names), or add the call to readersAllowed in internal/layering/readers_test.go with the reason it needs no bound",
		"b/b.go:7: io.ReadAll outside package input: read through input.ReadFile (or input.ReadFileIn for a file a repository names), or add the call to readersAllowed in internal/layering/readers_test.go with the reason it needs no bound",
		"readersAllowed: e/e.go: os.Open is not used any more: remove it",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// checkReaders returns a message for each use of fb.calls in a non-test Go
// file under root outside package home (directories left out as check
// leaves them out) that allowed does not list, and for each entry of
// allowed that no file uses.
func checkReaders(t *testing.T, root, home string, fb forbidden, allowed map[string]string) []string {
	var msgs []string
	used := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && leftOut(path, name) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if filepath.ToSlash(filepath.Dir(rel)) == home {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		local := map[string]string{} // local name -> import path, for readers' packages
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			if _, ok := fb.calls[imp]; !ok {
				continue
			}
			n := imp[strings.LastIndex(imp, "/")+1:]
			if spec.Name != nil {
				n = spec.Name.Name
			}
			local[n] = imp
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok || x.Obj != nil { // a local variable, not a package
				return true
			}
			imp, ok := local[x.Name]
			if !ok || !slices.Contains(fb.calls[imp], sel.Sel.Name) {
				return true
			}
			call := filepath.Base(imp) + "." + sel.Sel.Name
			key := rel + ": " + call
			if _, ok := allowed[key]; ok {
				used[key] = true
				return true
			}
			msgs = append(msgs, fmt.Sprintf("%s:%d: %s outside package %s: %s, or add the call to %s in internal/layering/readers_test.go with the reason it needs no bound",
				rel, fset.Position(sel.Pos()).Line, call, home, fb.advice, fb.list))
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var stale []string
	for key := range allowed {
		if !used[key] {
			stale = append(stale, fb.list+": "+key+" is not used any more: remove it")
		}
	}
	slices.Sort(stale)
	return append(msgs, stale...)
}

// TestCheckMatchers runs the checker with the matchers on a small module.
func TestCheckMatchers(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"input/glob.go": "package input\nimport \"path\"\nvar _, _ = path.Match(\"*\", \"a\")\n",
		"a/a.go":        "package a\nimport (\n\t\"path\"\n\t\"path/filepath\"\n)\nvar _, _ = path.Match(\"*\", \"a\")\nvar _, _ = filepath.Glob(\"*.js\")\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := checkReaders(t, dir, "input", matchCalls, nil)
	want := []string{
		"a/a.go:6: path.Match outside package input: match through input.FileGlob, input.PathGlob or input.ParseIgnorePattern, or add the call to matchersAllowed in internal/layering/readers_test.go with the reason it needs no bound",
		"a/a.go:7: filepath.Glob outside package input: match through input.FileGlob, input.PathGlob or input.ParseIgnorePattern, or add the call to matchersAllowed in internal/layering/readers_test.go with the reason it needs no bound",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
