package history

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	_ "github.com/restls/restls/internal/goldentest"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
)

func run(result string, body string) *dryrun.Result {
	return &dryrun.Result{
		Result: json.RawMessage(result),
		Calls: []*restclient.Call{{
			ServiceID: "crm", Method: "GET", URL: "https://crm.example/orders/1",
			Status: &restclient.Status{Code: 200, Message: "OK"}, ResponseBody: json.RawMessage(body),
		}},
		Mode: dryrun.ModeLive,
	}
}

func stores(t *testing.T) map[string]Store {
	return map[string]Store{"dir": &Dir{Root: filepath.Join(t.TempDir(), "restls", "history")}, "memory": NewMemory()}
}

func TestKeepsTheLastRunsNewestFirst(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			for i := range Keep + 3 {
				e := NewEntry("/p/a.js", SourceEditor, run(`{"n":`+itoa(i)+`}`, `{}`))
				e.Time = base.Add(time.Duration(i) * time.Second)
				if err := st.Add(e); err != nil {
					t.Fatal(err)
				}
			}
			if err := st.Add(NewEntry("/p/b.js", SourceEditor, run(`"other"`, `{}`))); err != nil {
				t.Fatal(err)
			}
			all, err := st.Last("/p/a.js", 1000)
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != Keep {
				t.Fatalf("kept %d runs of a.js, want %d", len(all), Keep)
			}
			if got := string(all[0].Run.Result); got != `{"n":52}` {
				t.Errorf("newest = %s", got)
			}
			if got := string(all[Keep-1].Run.Result); got != `{"n":3}` {
				t.Errorf("oldest kept = %s, want the three first dropped", got)
			}
			two, _ := st.Last("/p/a.js", 2)
			if len(two) != 2 || string(two[1].Run.Result) != `{"n":51}` {
				t.Errorf("Last(2) = %d entries", len(two))
			}
			b, _ := st.Last("/p/b.js", 5)
			if len(b) != 1 || string(b[0].Run.Result) != `"other"` || b[0].Run.Calls[0].Status.Code != 200 {
				t.Errorf("b.js runs = %+v", b)
			}
			none, err := st.Last("/p/never.js", 5)
			if err != nil || len(none) != 0 {
				t.Errorf("a script never run: %v %v", none, err)
			}
		})
	}
}

func TestDirIsPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX modes")
	}
	d := &Dir{Root: filepath.Join(t.TempDir(), "history")}
	if err := d.Add(NewEntry("/p/a.js", SourceCLI, run(`1`, `{}`))); err != nil {
		t.Fatal(err)
	}
	err := filepath.Walk(d.Root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDirLeavesOthersDirectoriesAlone is issue 33's point 8: Add made
// Root 0700 whoever made it, so RESTLS_HISTORY=/tmp as root closed /tmp
// to the whole machine. Now only the directories Add makes are set
// 0700; a Root that exists (here 1777, as /tmp) and the parents of a new
// Root keep their modes.
func TestDirLeavesOthersDirectoriesAlone(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX modes")
	}
	shared := t.TempDir()
	if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	mode := func(p string) os.FileMode {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode() & (os.ModePerm | os.ModeSticky)
	}
	for _, root := range []string{shared, filepath.Join(shared, "a", "b")} {
		d := &Dir{Root: root}
		if err := d.Add(NewEntry("/p/a.js", SourceCLI, run(`1`, `{}`))); err != nil {
			t.Fatal(err)
		}
		if got := mode(shared); got != 0o777|os.ModeSticky {
			t.Errorf("Root %s: the shared directory's mode became %v", root, got)
		}
		if got := mode(d.scriptDir("/p/a.js")); got != 0o700 {
			t.Errorf("Root %s: the script's directory is %v, want 0700", root, got)
		}
	}
	for _, made := range []string{filepath.Join(shared, "a"), filepath.Join(shared, "a", "b")} {
		if got := mode(made); got != 0o700 {
			t.Errorf("%s, made by Add: %v, want 0700", made, got)
		}
	}
}

func TestLargeRunsAreTrimmedToTheBound(t *testing.T) {
	big := `"` + strings.Repeat("x", MaxEntry) + `"`
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			if err := st.Add(NewEntry("/p/a.js", SourceEditor, run(`1`, big))); err != nil {
				t.Fatal(err)
			}
			got, err := st.Last("/p/a.js", 1)
			if err != nil || len(got) != 1 {
				t.Fatalf("%v %v", got, err)
			}
			c := got[0].Run.Calls[0]
			if !got[0].Trimmed || !c.BodyTruncated || len(c.ResponseBody) > 100 || !strings.Contains(string(c.ResponseBody), "not kept") {
				t.Errorf("trimmed=%v truncated=%v body=%.80s", got[0].Trimmed, c.BodyTruncated, c.ResponseBody)
			}
			// A small body stays whole beside a big one.
			r := run(`1`, big)
			r.Calls = append(r.Calls, &restclient.Call{ServiceID: "crm", Method: "GET", ResponseBody: json.RawMessage(`{"small":true}`)})
			if err := st.Add(NewEntry("/p/a.js", SourceEditor, r)); err != nil {
				t.Fatal(err)
			}
			got, _ = st.Last("/p/a.js", 1)
			if string(got[0].Run.Calls[1].ResponseBody) != `{"small":true}` {
				t.Errorf("small body = %s", got[0].Run.Calls[1].ResponseBody)
			}
		})
	}
	// Past the bound even without bodies, the run is refused.
	r := run(`1`, `{}`)
	r.Logs = []dryrun.LogEntry{{Level: "log", Message: strings.Repeat("y", MaxEntry)}}
	if err := NewMemory().Add(NewEntry("/p/a.js", SourceEditor, r)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
}

func TestDirSkipsBrokenAndForeignEntries(t *testing.T) {
	d := &Dir{Root: t.TempDir()}
	if err := d.Add(NewEntry("/p/a.js", SourceEditor, run(`1`, `{}`))); err != nil {
		t.Fatal(err)
	}
	dir := d.scriptDir("/p/a.js")
	os.WriteFile(filepath.Join(dir, "99999999999999999998-00.json"), []byte(`{"version":1,"script":"/p/other.js","run":{}}`), 0o600)
	os.WriteFile(filepath.Join(dir, "99999999999999999999-00.json"), []byte(`{"vers`), 0o600)
	got, err := d.Last("/p/a.js", 5)
	if err != nil || len(got) != 1 || string(got[0].Run.Result) != "1" {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestDecodeTakesRunJSON(t *testing.T) {
	e, err := Decode([]byte(`{"result":{"a":1},"error":null,"calls":[],"logs":[]}`))
	if err != nil || string(e.Run.Result) != `{"a":1}` {
		t.Fatalf("%+v %v", e, err)
	}
	if _, err := Decode([]byte(`{"version":7,"run":{}}`)); err == nil || !strings.Contains(err.Error(), "version 7") {
		t.Errorf("err = %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	data, _ := json.Marshal(NewEntry("/a.js", SourceCLI, run(`{"a":[1,2]}`, `{"b":null}`)))
	f.Add(data)
	f.Add([]byte(`{"result":1,"calls":[{"serviceId":"x","requestHeaders":{"a":"b"}}]}`))
	f.Add([]byte(strings.Repeat(`{"run":`, 5000) + "1" + strings.Repeat(`}`, 5000)))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Decode(data)
		if err != nil {
			return
		}
		if e.Run == nil {
			t.Fatal("an entry without a run")
		}
		if _, err := json.Marshal(e); err != nil {
			t.Fatalf("a decoded entry does not encode: %v", err)
		}
	})
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// BenchmarkDirAdd: keeping a run of 20 calls with 2 KiB bodies on disk,
// the pruning past Keep included (what every editor dry run now pays).
func BenchmarkDirAdd(b *testing.B) {
	r := run(`{"ok":true}`, `{"pad":"`+strings.Repeat("x", 2048)+`"}`)
	for range 19 {
		r.Calls = append(r.Calls, r.Calls[0])
	}
	d := &Dir{Root: b.TempDir()}
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Add(NewEntry("/p/a.js", SourceEditor, r)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestKeepsBodiesAsSent: a kept run's result and bodies read back with
// their < > & as they were, not as json.Marshal's \u003c \u003e \u0026.
func TestKeepsBodiesAsSent(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			const body = `{"next":"/c?a=1&b=2","html":"<b>"}`
			if err := st.Add(NewEntry("/p/a.js", SourceCLI, run(body, body))); err != nil {
				t.Fatal(err)
			}
			got, err := st.Last("/p/a.js", 1)
			if err != nil || len(got) != 1 {
				t.Fatalf("%d entries, %v", len(got), err)
			}
			if r, b := string(got[0].Run.Result), string(got[0].Run.Calls[0].ResponseBody); r != body || b != body {
				t.Errorf("result %s, body %s, want both %s", r, b, body)
			}
		})
	}
}
