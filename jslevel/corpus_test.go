package jslevel

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dop251/goja"

	"github.com/restls/restls/internal/goldentest"
)

// corpusDir holds a corpus per level: pass/*.js must give nothing at the
// level, flag/*.js must give the feature their first line names
// ("// want: arrow functions"), and nothing at the level that
// introduced it.
const corpusDir = "../testdata/engine"

// CorpusFile is one script of the corpus.
type corpusFile struct {
	level Level
	path  string
	text  string
	want  string // the feature's name; "" for a pass file
}

func loadCorpus(t *testing.T) []corpusFile {
	t.Helper()
	var out []corpusFile
	for _, name := range Names() {
		level, _ := Parse(name)
		for _, dir := range []string{"pass", "flag"} {
			files, _ := filepath.Glob(filepath.Join(corpusDir, name, dir, "*.js"))
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				cf := corpusFile{level: level, path: f, text: string(data)}
				if dir == "flag" {
					first, _, _ := strings.Cut(cf.text, "\n")
					want, ok := strings.CutPrefix(first, "// want: ")
					if !ok {
						t.Fatalf("%s: the first line must be // want: FEATURE", f)
					}
					cf.want = want
				}
				out = append(out, cf)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no corpus under " + corpusDir)
	}
	return out
}

func featureNamed(name string) *Feature {
	for _, f := range features() {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// TestCorpus holds every file of the corpus to its level, checks that
// goja (latest) accepts each, and that every feature of the table is
// flagged by some file. The messages are golden, per level.
func TestCorpus(t *testing.T) {
	covered := map[string]bool{}
	golden := map[Level]*strings.Builder{}
	for _, cf := range loadCorpus(t) {
		if _, err := goja.Compile(cf.path, "(function(){"+cf.text+"\n})", false); err != nil {
			t.Errorf("%s: goja does not accept it, so latest would refuse it: %v", cf.path, err)
		}
		uses := Check(cf.text, cf.level)
		if Check(cf.text, Latest) != nil {
			t.Errorf("%s: latest reports something", cf.path)
		}
		if cf.want == "" {
			for _, u := range uses {
				t.Errorf("%s: a pass file, flagged at %s: %s", cf.path, cf.level, u.Message(cf.level))
			}
			continue
		}
		f := featureNamed(cf.want)
		if f == nil {
			t.Errorf("%s: no feature %q in the table", cf.path, cf.want)
			continue
		}
		if len(uses) == 0 {
			t.Errorf("%s: %s is not flagged at %s", cf.path, cf.want, cf.level)
		}
		for _, u := range uses {
			if u.Feature != f {
				t.Errorf("%s: want only %s flagged, got %s", cf.path, f.Name, u.Feature.Name)
			}
		}
		if got := Check(cf.text, f.Level); len(got) > 0 {
			t.Errorf("%s: flagged at %s, the level that introduced %s: %s", cf.path, f.Level, f.Name, got[0].Message(f.Level))
		}
		covered[f.Name] = true
		b := golden[cf.level]
		if b == nil {
			b = &strings.Builder{}
			golden[cf.level] = b
		}
		for _, u := range uses {
			line := strings.Count(cf.text[:u.Start], "\n") + 1
			fmt.Fprintf(b, "%s:%d: [%s] %s\n", filepath.Base(cf.path), line, u.Code(), u.Message(cf.level))
		}
	}
	for _, f := range features() {
		if !covered[f.Name] {
			t.Errorf("no flag file of the corpus covers %s (%s)", f.Name, f.Level)
		}
	}
	levels := make([]Level, 0, len(golden))
	for l := range golden {
		levels = append(levels, l)
	}
	sort.Slice(levels, func(i, j int) bool { return levels[i] < levels[j] })
	for _, l := range levels {
		goldentest.Check(t, filepath.Join("testdata", "golden", l.String()+".golden"), golden[l].String())
	}
}

// TestBuiltinsExist: every builtin of the table is in goja, the engine
// latest stands for (a row goja lacks could never run under latest).
func TestBuiltinsExist(t *testing.T) {
	vm := goja.New()
	for _, f := range builtinFeatures {
		expr := f.Name
		if f.protoType != "" {
			expr = f.protoType + ".prototype." + f.protoMethod
		}
		v, err := vm.RunString("typeof " + expr)
		if err != nil || v.String() == "undefined" {
			t.Errorf("%s: not in goja (%v, %v)", f.Name, v, err)
		}
	}
}

// TestFeaturesDocumented writes the table into docs/configuration.md,
// between its engine-table comments: what each level adds.
func TestFeaturesDocumented(t *testing.T) {
	const path = "../docs/configuration.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const open, close = "-->\n", "<!-- /engine-table -->"
	doc := string(data)
	start := strings.Index(doc, "<!-- engine-table")
	end := strings.Index(doc, close)
	if start < 0 || end < start {
		t.Fatal("docs/configuration.md has no engine-table comments")
	}
	start += strings.Index(doc[start:], open) + len(open)
	var b strings.Builder
	b.WriteString("| Level | Syntax (engine-syntax) | Builtins (engine-builtin) |\n|---|---|---|\n")
	for _, name := range Names() {
		level, _ := Parse(name)
		var syn, blt []string
		for _, f := range features() {
			if f.Level != level {
				continue
			}
			if f.Kind == Syntax {
				syn = append(syn, strings.ReplaceAll(f.Name, "|", "\\|"))
			} else {
				blt = append(blt, "`"+f.Name+"`")
			}
		}
		switch level {
		case ES5_1:
			syn = []string{"the base: everything else"}
		case Latest:
			syn = []string{"everything goja runs; nothing is reported"}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, orNone(syn), orNone(blt))
	}
	goldentest.Check(t, path, doc[:start]+b.String()+doc[end:])
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// features is the whole table, syntax first.
func features() []*Feature {
	return append(append([]*Feature{}, syntaxFeatures...), builtinFeatures...)
}
