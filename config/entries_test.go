package config

import (
	"fmt"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// spanText is what an entry's span covers in files.
func spanText(files memFiles, e Entry, sp Span) string {
	if !sp.Found {
		return "<not found>"
	}
	return files[e.Defined.File][sp.Start:sp.End]
}

// TestEntries: every definition of every source, overridden ones too, each
// id, reference and oAuth id located exactly in every format.
func TestEntries(t *testing.T) {
	files := memFiles{
		"root/" + yml: "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com/v1\n" +
			"    - serviceId: \"quoted\"\n      url: 'crm/orders'\n      authorization:\n        type: oAuth\n        id: o1\n" +
			"    - {serviceId: flow, url: crm/flow}\n" +
			"  oAuth:\n    - id: o1\n      url: https://auth.example.com/token\n      grantType: client_credentials\n" +
			"      clientAuthenticationMethod: client_secret_post\n      clientId: c\n      clientSecret: s\n",
		"root/application.properties": "# comment\nscriptservice.api[0].serviceId = crm\nscriptservice.api[0].url=https://other.example.com\n" +
			"scriptservice.api[1].serviceId=esc\\u0061ped\nscriptservice.api[1].url=https://e.example.com\n",
		"root/" + svc: xmlDoc(`<api description="d" serviceId="crm" url="https://xml.example.com"/>` + "\n" +
			`<api serviceId='xref' url="crm/x"><authorization type="oAuth"><id> o2 </id></authorization></api>` + "\n" +
			`<oAuth id="o2" url="https://a.example.com/t" grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientId="c" clientSecret="s"/>`),
		"root/" + hdl: xmlDoc(`<api serviceId="task" url="https://task.example.com"/>`),
	}
	snap := LoadWith(Sources{ConfigRoot: "root"}, files.read)
	var got []string
	for _, e := range snap.Entries() {
		kind := "api"
		if e.OAuth {
			kind = "oAuth"
		}
		line := fmt.Sprintf("%s %s %s@%d id=%s", strings.TrimPrefix(e.Defined.File, "root/"), kind, e.ID, e.IDAt.Line, spanText(files, e, e.IDSpan))
		if e.RefersTo != "" {
			line += " ref=" + spanText(files, e, e.RefersToSpan)
		}
		if e.OAuthRef != "" {
			line += " oauth=" + spanText(files, e, e.OAuthRefSpan)
		}
		line += fmt.Sprintf(" kinds=%d inForce=%v", len(e.Kinds), e.InForce)
		got = append(got, line)
	}
	want := []string{
		"application.yml api crm@3 id=crm kinds=3 inForce=[]",
		"application.yml api quoted@5 id=quoted ref=crm oauth=o1 kinds=3 inForce=[scriptService scriptTask validationScript]",
		"application.yml api flow@10 id=flow ref=crm kinds=3 inForce=[scriptService scriptTask validationScript]",
		"application.yml oAuth o1@12 id=o1 kinds=3 inForce=[scriptService scriptTask validationScript]",
		"application.properties api crm@2 id=crm kinds=3 inForce=[scriptTask]",
		"application.properties api escaped@4 id=<not found> kinds=3 inForce=[scriptService scriptTask validationScript]",
		"script-code-config/script-service-api.xml api crm@2 id=crm kinds=2 inForce=[scriptService validationScript]",
		"script-code-config/script-service-api.xml api xref@3 id=xref ref=crm oauth=o2 kinds=2 inForce=[scriptService validationScript]",
		"script-code-config/script-service-api.xml oAuth o2@4 id=o2 kinds=2 inForce=[scriptService validationScript]",
		"script-handler-config/script-handler-api.xml api task@2 id=task kinds=1 inForce=[scriptTask]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// FuzzEntries: whatever the text, a span that is found covers exactly
// the value it names.
func FuzzEntries(f *testing.F) {
	f.Add("scriptservice:\n  api:\n    - serviceId: a\n      url: a/b\n", "scriptservice.api[0].serviceId=x\n", `<api serviceId="s" url="s/x"><authorization type="oAuth"><id>o</id></authorization></api>`)
	f.Add("scriptservice:\n  api:\n    - {serviceId: 'a''b', url: \"a\\\"/b\"}\n", "scriptservice.api[0].serviceId  :  x\\\n  y\n", `<api url='u' serviceId = " s "/>`)
	f.Fuzz(func(t *testing.T, y, props, x string) {
		files := memFiles{"root/" + yml: y, "root/application.properties": props, "root/" + svc: xmlDoc(x)}
		for _, e := range LoadWith(Sources{ConfigRoot: "root"}, files.read).Entries() {
			text := files[e.Defined.File]
			check := func(what, want string, sp Span) {
				if sp.Found && (sp.Start < 0 || sp.End > len(text) || text[sp.Start:sp.End] != want) {
					t.Fatalf("%s %q: span %v covers %q", what, want, sp, text[max(0, min(sp.Start, len(text))):max(0, min(sp.End, len(text)))])
				}
			}
			check("id", e.ID, e.IDSpan)
			check("ref", e.RefersTo, e.RefersToSpan)
			check("oAuth", e.OAuthRef, e.OAuthRefSpan)
		}
	})
}

// TestEntriesBuiltOnFirstUse: a load does no navigation work (with
// 10,000 services, building the entries was a third of the load, and it
// made the first completion 1.6x slower, issue 33): the entries are built
// at the first Entries, once for every caller at once, from the text as
// it was read (nothing is read again), and then the text is let go.
func TestEntriesBuiltOnFirstUse(t *testing.T) {
	files := memFiles{
		"root/" + yml: "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com/v1\n    - serviceId: ref\n      url: crm/x\n",
		"root/" + svc: xmlDoc(`<api serviceId="x" url="https://x.example.com"/>`),
	}
	reads := 0
	snap := LoadWith(Sources{ConfigRoot: "root"}, func(p string) ([]byte, error) {
		reads++
		return files.read(p)
	})
	if snap.entries == nil || snap.entries.entries != nil || len(snap.entries.srcs) == 0 {
		t.Fatal("Load built the entries; navigation builds them when it first asks")
	}
	loadReads := reads
	// The files change after the load: the entries are the snapshot's.
	files["root/"+yml] = "scriptservice:\n  api:\n    - serviceId: other\n      url: https://other.example.com\n"
	var wg sync.WaitGroup
	got := make([][]Entry, 8)
	for i := range got {
		wg.Go(func() { got[i] = snap.Entries() })
	}
	wg.Wait()
	for i, es := range got {
		if len(es) != 3 || &es[0] != &got[0][0] {
			t.Fatalf("caller %d got %d entries at %p, want the same 3 as caller 0", i, len(es), es)
		}
	}
	if e := got[0][0]; e.ID != "crm" || !e.IDSpan.Found || e.IDSpan.Start != strings.Index("scriptservice:\n  api:\n    - serviceId: crm", "crm") {
		t.Errorf("first entry %+v: want crm located in the text as loaded", e)
	}
	if reads != loadReads {
		t.Errorf("Entries read %d files again", reads-loadReads)
	}
	if snap.entries.srcs != nil {
		t.Error("the parsed sources and their text are kept after the entries are built")
	}
}

// TestEntrySourcesKeepLittle: what a snapshot keeps until navigation first
// asks for its entries is what an entry is made of, and the text the
// spans are found in: with 10,000 services, about 110 bytes a service
// beside the text's 100, where the whole parse (every position repeating
// the file's name, descriptions) kept 210 (issue 34: the language
// server's memory with 50 open scripts and 10,000 services).
func TestEntrySourcesKeepLittle(t *testing.T) {
	const n = 10000
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "  <api serviceId=\"service-%05d\" url=\"https://service-%05d.example.com/api\" description=\"Generated service %d\"/>\n", i, i, i)
	}
	text := xmlDoc(b.String())
	files := memFiles{"root/" + svc: text}
	snap := LoadWith(Sources{ConfigRoot: "root"}, files.read)
	kept := heapWithout(func() { snap.entries.srcs = nil })
	goruntime.KeepAlive(snap)
	perService := (kept - len(text)) / n
	t.Logf("entry sources: %d bytes beside the %d of the text, %d a service", kept-len(text), len(text), perService)
	if perService > 140 {
		t.Errorf("the entry sources keep %d bytes a service beside the text, want at most 140", perService)
	}
}

// heapWithout returns how many bytes of live heap drop lets go.
func heapWithout(drop func()) int {
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	drop()
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	return int(before.HeapAlloc) - int(after.HeapAlloc)
}
