package faults

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// explore runs Explore in process on text, with every crm call answered
// {n: 1} (crm's address refuses: no run may reach it).
func explore(t *testing.T, text string, opts Options) *Report {
	t.Helper()
	snap, dir := crm(t)
	base, err := restclient.ParseMock("s.mock.yaml", []byte("- {serviceId: crm, body: {n: 1}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	rep, err := Explore(context.Background(), eng.Run, snap, engine.Request{Path: filepath.Join(dir, "s.js"), Text: text}, base, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// crm is a project whose one service, crm, refuses connections.
func crm(t testing.TB) (workspace.Snapshot, string) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "services.xml")
	if err := os.WriteFile(file, []byte(`<scriptservice><api serviceId="crm" url="http://127.0.0.1:1/api"/></scriptservice>`), 0o600); err != nil {
		t.Fatal(err)
	}
	return workspace.NewSnapshot(config.Load(config.Sources{ServiceXML: file}), nil, nil, nil, nil, nil), dir
}

// verdicts is "outcome=verdict" for each finding of site, in order.
func verdicts(rep *Report, site int) string {
	var out []string
	for _, f := range rep.Findings {
		if f.Site == site {
			out = append(out, f.Outcome+"="+string(f.Verdict))
		}
	}
	return strings.Join(out, " ")
}

// TestSeededDefects: the defects of issue 36's acceptance, each found
// with its verdict at its call site's line; correct scripts report none.
func TestSeededDefects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		sites      int
		site       int // the site checked
		line       int
		want       string
		errLine    int // the line of the first crash, 0 for none
	}{
		{
			name:  "missing try/catch",
			text:  "var r = api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {});\nreturn r.body.n;",
			sites: 1, line: 1,
			want: "500=escaped 404=escaped 400=escaped not-json=escaped connect-timeout=escaped read-timeout=escaped connection-refused=escaped",
		},
		{
			name:  "catch reads e.status.code unchecked",
			text:  "try {\n  return api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {}).body.n;\n} catch (e) {\n  if (e.status.code === 404) return null;\n  throw e;\n}",
			sites: 1, line: 2, errLine: 4,
			want: "500=escaped 404=handled 400=escaped not-json=crashed connect-timeout=crashed read-timeout=crashed connection-refused=crashed",
		},
		{
			name:  "catch takes a RestClientError for a 404",
			text:  "try {\n  return api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {}).body.n;\n} catch (e) {\n  if (e.status && e.status.code !== 404) throw e;\n  return null;\n}",
			sites: 1, line: 2,
			want: "500=escaped 404=handled 400=escaped not-json=misread connect-timeout=misread read-timeout=misread connection-refused=misread",
		},
		{
			name:  "fallback undefined read later",
			text:  "function load() {\n  try { return api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {}).body; } catch (e) { return undefined; }\n}\nvar c = load();\nreturn c.n;",
			sites: 1, line: 2, errLine: 5,
			want: "500=crashed 404=crashed 400=crashed not-json=crashed connect-timeout=crashed read-timeout=crashed connection-refused=crashed",
		},
		{
			name:  "a loop whose third call fails",
			text:  "var out = [];\nvar ids = [\"a\", \"b\", \"c\"];\nfor (var i = 0; i < ids.length; i++) {\n  try { out.push(api.rest.v1.get(\"crm\", {pathParams: [ids[i]]}, {}).body.n); } catch (e) { if (i < 2) { out.push(0); } else { throw e; } }\n}\nreturn out;",
			sites: 3, site: 2, line: 4,
			want: "500=escaped 404=escaped 400=escaped not-json=escaped connect-timeout=escaped read-timeout=escaped connection-refused=escaped",
		},
		{
			name:  "catch takes the service's answer for a RestClientError",
			text:  "try {\n  return api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {}).body.n;\n} catch (e) {\n  throw new Error(\"crm is unreachable: \" + e.message);\n}",
			sites: 1, line: 2,
			want: "500=misread 404=misread 400=misread not-json=handled connect-timeout=handled read-timeout=handled connection-refused=handled",
		},
		{
			name:  "correct: the contract's test, a fallback for the rest",
			text:  "var r;\ntry {\n  r = api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {});\n} catch (e) {\n  if (e.status && e.status.code === 404) return null;\n  return {failed: e.status ? e.status.code : e.code};\n}\nreturn r.body.n;",
			sites: 1, line: 3,
			want: "500=handled 404=handled 400=handled not-json=handled connect-timeout=handled read-timeout=handled connection-refused=handled",
		},
		{
			name:  "correct: one fallback for every failure",
			text:  "try { return api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {}).body.n; } catch (e) { return -1; }",
			sites: 1, line: 1,
			want: "500=handled 404=handled 400=handled not-json=handled connect-timeout=handled read-timeout=handled connection-refused=handled",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep := explore(t, tc.text, Options{})
			if len(rep.Sites) != tc.sites {
				t.Fatalf("sites %+v, want %d", rep.Sites, tc.sites)
			}
			if s := rep.Sites[tc.site]; s.Line != tc.line || s.Call != tc.site {
				t.Errorf("site %d %+v: want line %d, call %d", tc.site, s, tc.line, tc.site)
			}
			if got := verdicts(rep, tc.site); got != tc.want {
				t.Errorf("verdicts\n got %s\nwant %s", got, tc.want)
			}
			for _, f := range rep.Findings {
				if f.Site == tc.site && f.Verdict == Crashed && (f.Error == nil || f.Error.Line != tc.errLine) {
					t.Errorf("%s crashed at %+v, want line %d", f.Outcome, f.Error, tc.errLine)
				}
			}
			if rep.Runs != len(Outcomes)*tc.sites || rep.Cut != 0 {
				t.Errorf("%d runs, %d cut", rep.Runs, rep.Cut)
			}
		})
	}
}

// TestBounds: the cap on reruns cuts what is left and says how much; an
// unknown outcome and a base run that fails are refused.
func TestBounds(t *testing.T) {
	t.Parallel()
	text := "api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {});\napi.rest.v1.get(\"crm\", {pathParams: [\"b\"]}, {});"
	rep := explore(t, text, Options{MaxRuns: 9})
	if rep.Runs != 9 || rep.Cut != 5 || len(rep.Findings) != 9 {
		t.Errorf("%d runs, %d cut, %d findings; want 9, 5, 9", rep.Runs, rep.Cut, len(rep.Findings))
	}
	if want := `the cap of 9 runs cut 5 (call site, outcome) pairs, from the call at line 2 (GET crm path "b") on`; len(rep.Notes) != 1 || !strings.HasPrefix(rep.Notes[0], want) {
		t.Errorf("notes %q, want %q...", rep.Notes, want)
	}
	rep = explore(t, text, Options{Outcomes: []string{"404"}})
	if got := verdicts(rep, 1); got != "404=escaped" {
		t.Errorf("site 1: %s", got)
	}
	snap, _ := crm(t)
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	if _, err := Explore(context.Background(), eng.Run, snap, engine.Request{Text: "return 1;"}, nil, Options{Outcomes: []string{"503x"}}); err == nil || !strings.Contains(err.Error(), `outcome "503x"`) {
		t.Errorf("unknown outcome: %v", err)
	}
	var be *BaseError
	if _, err := Explore(context.Background(), eng.Run, snap, engine.Request{Text: "api.rest.v1.get(\"crm\", {}, {});"}, nil, Options{}); !errors.As(err, &be) {
		t.Errorf("failing base run: %v, want a BaseError", err)
	}
}
