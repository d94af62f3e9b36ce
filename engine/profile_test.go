package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/jslevel"
	"github.com/restls/restls/runtime/dryrun"
)

// TestProfileRefusesTheCorpus: under each level of the corpus
// (testdata/engine), a dry run refuses every flag file, with the first
// diagnostic's code and message (jslevel.Check is what the editor and
// restls check report), and runs every pass file. Under latest (no
// engine key) every file runs.
func TestProfileRefusesTheCorpus(t *testing.T) {
	files, _ := filepath.Glob("../testdata/engine/*/*/*.js")
	if len(files) == 0 {
		t.Fatal("no corpus")
	}
	snap := project(t, "http://127.0.0.1:1", nil)
	e := inProcess(t, Options{})
	refusedCount := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		level, err := jslevel.Parse(filepath.Base(filepath.Dir(filepath.Dir(f))))
		if err != nil {
			t.Fatal(err)
		}
		snap.EngineLevel = level
		res, err := e.Run(context.Background(), snap, Request{Name: f, Text: text, Fixtures: Fixtures{None: true}})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		uses := jslevel.Check(text, level)
		if strings.Contains(f, "/flag/") {
			if res.Error == nil || res.Error.Code != uses[0].Code() || res.Error.Message != uses[0].Message(level) {
				t.Errorf("%s: not refused as the editor reports it: %+v", f, res.Error)
				continue
			}
			if want := strings.Count(text[:uses[0].Start], "\n") + 1; res.Error.Line != want || len(res.Error.Errors) != min(len(uses), 10) {
				t.Errorf("%s: line %d (want %d), %d errors (want %d)", f, res.Error.Line, want, len(res.Error.Errors), len(uses))
			}
			refusedCount++
		} else if res.Error != nil && strings.HasPrefix(res.Error.Code, "engine-") {
			t.Errorf("%s: a pass file refused: %s", f, res.Error.Message)
		}
		snap.EngineLevel = jslevel.Latest
		if res, err := e.Run(context.Background(), snap, Request{Name: f, Text: text, Fixtures: Fixtures{None: true}}); err != nil || res.Error != nil && strings.HasPrefix(res.Error.Code, "engine-") {
			t.Errorf("%s: refused under latest: %v %+v", f, err, res)
		}
	}
	if refusedCount == 0 {
		t.Fatal("nothing refused")
	}
}

// observed records Done.
type observed struct {
	dryrun.Observer
	done *dryrun.Result
}

func (o *observed) Done(r *dryrun.Result) { o.done = r }

// TestProfileRefusesInChild: a child run is refused the same way, before
// any child starts, and the observer hears the result.
func TestProfileRefusesInChild(t *testing.T) {
	snap := project(t, "http://127.0.0.1:1", nil)
	snap.EngineLevel = jslevel.ES5_1
	e := New(Options{Isolation: Child, Executable: "/nonexistent/restls"})
	obs := &observed{}
	res, err := e.Run(context.Background(), snap, Request{Name: "a.js", Text: "var x = 1;\nconst f = () => x;\nreturn f();", Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	if res.Error == nil || res.Error.Code != jslevel.CodeSyntax || res.Error.Line != 2 || res.Error.Column != 1 ||
		res.Error.SourceLine != "const f = () => x;" || len(res.Error.Errors) != 2 || obs.done != res {
		t.Fatalf("%+v", res.Error)
	}
}
