package config

import (
	"fmt"
	"strings"
	"testing"
)

// chainYAML is issue 23's finding 3: service r_i refers to r_{i-1}, for i
// up to n, under one service with an address.
func chainYAML(n int) string {
	var b strings.Builder
	b.WriteString("scriptservice:\n  api:\n    - serviceId: r_0\n      url: https://example.com/\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "    - serviceId: r_%d\n      url: r_%d/x\n", i, i-1)
	}
	return b.String()
}

// TestReferenceChainMessagesDoNotNest: each message of a long chain names
// its own link only; before the fix each quoted the previous one, so 5,000
// links took gigabytes.
func TestReferenceChainMessagesDoNotNest(t *testing.T) {
	r := loadRoot(t, memFiles{yml: chainYAML(5000)}).For(ScriptService)
	mustService(t, r, "r_1")
	total := 0
	for _, d := range r.Diagnostics {
		total += len(d.Message)
		if len(d.Message) > 400 {
			t.Fatalf("message of %d bytes: %.300s...", len(d.Message), d.Message)
		}
	}
	if total > 5000*400 {
		t.Errorf("messages total %d bytes", total)
	}
	for id, want := range map[string]string{
		// r_1 has an address to refer to: say so.
		"r_2": `service "r_2" refers to "r_1", which itself refers to "r_0" (r_2 -> r_1 -> r_0); only one level of reference works: give "r_1" an address or refer to "r_0" directly (the service is unusable)`,
		// r_2 is a reference to a reference: referring to it directly
		// would repeat the mistake.
		"r_3":    `service "r_3" refers to "r_2", which itself refers to "r_1" (r_3 -> r_2 -> r_1); only one level of reference works: give "r_2" an http(s) address ("r_1" is a reference as well) (the service is unusable)`,
		"r_4999": `service "r_4999" refers to "r_4998", which itself refers to "r_4997" (r_4999 -> r_4998 -> r_4997); only one level of reference works: give "r_4998" an http(s) address ("r_4997" is a reference as well) (the service is unusable)`,
	} {
		d, ok := r.Unusable(id)
		if !ok || d.Code != CodeReferenceChain || d.Message != want {
			t.Errorf("%s: got %v %q\nwant %q", id, ok, d.Message, want)
		}
	}
}

// TestReferenceToUnusableQuotesNoMessage: the reason given for an unusable
// target is short and names where its own error is, however long the
// target's url is.
func TestReferenceToUnusableQuotesNoMessage(t *testing.T) {
	long := "https://" + strings.Repeat("a", 100000) + " .example.com/"
	r := loadRoot(t, memFiles{svc: xmlDoc(`<api serviceId="b" url="` + long + `"/><api serviceId="a" url="b/2"/>`)}).For(ScriptService)
	d, ok := r.Unusable("a")
	want := `service "a" refers to "b", which is unusable (its url is not a valid address, at root/` + svc + `:2:1); fix "b" first (the service is unusable)`
	if !ok || d.Code != CodeBrokenReference || d.Message != want {
		t.Errorf("got %v %.300q\nwant %q", ok, d.Message, want)
	}
}

// TestUnknownReferencesAreLinear: many references to serviceIds defined
// later or nowhere cost one index and a bounded number of suggestions.
func TestUnknownReferencesAreLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString("scriptservice:\n  api:\n")
	const n = 3000
	for i := range n {
		fmt.Fprintf(&b, "    - serviceId: s_%d\n      url: https://s%d.example.com/\n", i, i)
		fmt.Fprintf(&b, "    - serviceId: u_%d\n      url: s_%dx/x\n", i, i)
		fmt.Fprintf(&b, "    - serviceId: l_%d\n      url: z_%d/x\n", i, i)
	}
	for i := range n {
		fmt.Fprintf(&b, "    - serviceId: z_%d\n      url: https://z.example.com/\n", i)
	}
	r := loadRoot(t, memFiles{yml: b.String()}).For(ScriptService)
	if d, _ := r.Unusable("u_0"); !strings.Contains(d.Message, `did you mean "s_0"?`) {
		t.Errorf("u_0: %s", d.Message)
	}
	if d, _ := r.Unusable("u_2999"); d.Code != CodeUnknownReference || strings.Contains(d.Message, "did you mean") {
		t.Errorf("u_2999 (past the suggestion budget): %s", d.Message)
	}
	if d, _ := r.Unusable("l_2999"); !strings.Contains(d.Message, "defined only later, at root/"+yml+":") {
		t.Errorf("l_2999: %s", d.Message)
	}
}

func BenchmarkReferenceChain(b *testing.B) {
	files := memFiles{"root/" + yml: chainYAML(5000)}
	for b.Loop() {
		LoadWith(Sources{ConfigRoot: "root"}, files.read)
	}
}

// TestControlCharacterIDsAreRefused is issue 23's finding 10 at the loader:
// a serviceId or oAuth id holding a newline reached curl export's shell
// comments. Each source format reports it where the id is written.
func TestControlCharacterIDsAreRefused(t *testing.T) {
	for _, c := range []struct {
		name  string
		files memFiles
		line  int
	}{
		{"yaml", memFiles{yml: "scriptservice:\n  api:\n    - serviceId: \"ev\\nil; touch /tmp/PWNED #\"\n      url: https://x.example.com\n"}, 3},
		{"properties", memFiles{"app.properties": "scriptservice.api[0].serviceId=ev\\nil; touch /tmp/PWNED #\nscriptservice.api[0].url=https://x.example.com\n"}, 1},
		{"xml", memFiles{svc: xmlDoc(`<api serviceId="ev&#10;il; touch /tmp/PWNED #" url="https://x.example.com"/>`)}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			var snap *Snapshot
			if _, ok := c.files["app.properties"]; ok {
				snap = LoadWith(Sources{Properties: []string{"app.properties"}}, c.files.read)
			} else {
				snap = loadRoot(t, c.files)
			}
			r := snap.For(ScriptService)
			if r.Len() != 0 {
				t.Errorf("services = %q", r.IDs())
			}
			ds := findDiag(r, CodeBadServiceID)
			if len(ds) != 1 {
				t.Fatalf("diagnostics:\n%s", dump(r.Diagnostics))
			}
			d := ds[0]
			if d.Severity != SeverityError || d.Line != c.line || d.RuneCol == 0 || strings.ContainsRune(d.Message, '\n') ||
				!strings.Contains(d.Message, fmt.Sprintf("serviceId %q contains the control character U+000A at byte 2", "ev\nil; touch /tmp/PWNED #")) ||
				!strings.Contains(d.Message, "remove the character") {
				t.Errorf("got %s", d)
			}
		})
	}
	t.Run("oAuth", func(t *testing.T) {
		r := loadRoot(t, memFiles{svc: xmlDoc(`<oAuth id="o&#13;x" url="https://t.example.com" grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientId="c" clientSecret="s"/>
<api serviceId="s" url="https://s.example.com"><authorization type="oAuth"><id>o&#13;x</id></authorization></api>`)}).For(ScriptService)
		ds := findDiag(r, CodeBadOAuthID)
		if len(ds) != 1 || ds[0].Line != 2 || !strings.Contains(ds[0].Message, `oAuth id "o\rx" contains the control character U+000D`) {
			t.Fatalf("diagnostics:\n%s", dump(r.Diagnostics))
		}
		if d, _ := r.Unusable("s"); d.Code != CodeAuthBrokenOAuth || !strings.Contains(d.Message, "its id contains a control character") {
			t.Errorf("s: %s", d)
		}
	})
}

// TestPlainHTTPOnLoopbackIsNoWarning (issue 24): plain http to this
// machine crosses no network, so local development configurations pass
// check --strict; any other host still gets the warning.
func TestPlainHTTPOnLoopbackIsNoWarning(t *testing.T) {
	for _, c := range []struct {
		url  string
		warn bool
	}{
		{"http://127.0.0.1:8080/api", false},
		{"http://127.1.2.3/", false},
		{"http://localhost:3000", false},
		{"http://LOCALHOST./x", false},
		{"http://[::1]:8080/", false},
		{"http://[::ffff:127.0.0.1]/", false},
		{"http://localhost.example.com/", true},
		{"http://128.0.0.1/", true},
		{"http://10.0.0.1/", true},
		{"http://[::2]/", true},
		{"http://crm.example.com/", true},
	} {
		r := loadRoot(t, memFiles{svc: xmlDoc(`<api serviceId="s" url="` + c.url + `"/>`)}).For(ScriptService)
		mustService(t, r, "s")
		if got := len(findDiag(r, CodeInsecureURL)) > 0; got != c.warn {
			t.Errorf("%s: warning %v, want %v", c.url, got, c.warn)
		}
	}
}

// TestReferenceToRefusedIDIsNotDefined: an entry refused for a control
// character in its id does not count as "defined later" either.
func TestReferenceToRefusedIDIsNotDefined(t *testing.T) {
	r := loadRoot(t, memFiles{svc: xmlDoc(`<api serviceId="a&#10;b" url="https://x.example.com"/><api serviceId="c" url="a&#10;b/x"/>`)}).For(ScriptService)
	d, ok := r.Unusable("c")
	if !ok || d.Code != CodeUnknownReference || strings.Contains(d.Message, "defined only later") {
		t.Errorf("c: %v %s", ok, d)
	}
}
