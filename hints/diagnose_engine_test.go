package hints

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/jslevel"
)

// TestEngineDiagnosticsMatchCorpus: over the corpus of every level
// (testdata/engine), Diagnose reports exactly what jslevel.Check (a dry
// run's refusal) finds, at the same ranges with the same messages, and
// nothing when the level is latest.
func TestEngineDiagnosticsMatchCorpus(t *testing.T) {
	files, _ := filepath.Glob("../testdata/engine/*/*/*.js")
	if len(files) == 0 {
		t.Fatal("no corpus")
	}
	flagged := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		level, err := jslevel.Parse(filepath.Base(filepath.Dir(filepath.Dir(f))))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		want := jslevel.Check(text, level)
		var got []Diagnostic
		for _, d := range Diagnose(NewDocument(text), nil, Display{EngineLevel: level}) {
			if strings.HasPrefix(d.Code, "engine-") {
				got = append(got, d)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d engine diagnostics, the run engine finds %d", f, len(got), len(want))
			continue
		}
		for i, d := range got {
			w := want[i]
			if d.Code != w.Code() || d.Message != w.Message(level) || d.Range != (Range{w.Start, w.End}) || d.Severity != SeverityError {
				t.Errorf("%s: %+v, want %s %q at %d-%d", f, d, w.Code(), w.Message(level), w.Start, w.End)
			}
		}
		if strings.Contains(f, "/flag/") && len(got) == 0 {
			t.Errorf("%s: a flag file, not flagged", f)
		}
		flagged += len(got)
		for _, d := range Diagnose(NewDocument(text), nil, Display{}) {
			if strings.HasPrefix(d.Code, "engine-") {
				t.Errorf("%s: %s reported at latest", f, d.Code)
			}
		}
	}
	if flagged == 0 {
		t.Fatal("nothing flagged")
	}
}
