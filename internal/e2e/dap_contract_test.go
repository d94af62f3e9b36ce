package e2e_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	godap "github.com/google/go-dap"
)

// TestDebugRunContractNotes: the same script and description give the
// same contract notes through restls run --json, restls dap (the debug
// console, after the calls) and a designer debug session of restls
// serve (whose child is given the server's descriptions): one answer
// check, the run engine's. A debug run had no descriptions, and no note.
func TestDebugRunContractNotes(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/orders/1":
			_, _ = w.Write([]byte(`{"id":1,"items":[{"sku":"a","qty":"two"}]}`))
		default:
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"error":"busy"}`))
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "config/application.yml", "scriptservice:\n  api:\n    - serviceId: shop\n      url: "+srv.URL+"/api\n")
	project := writeFile(t, dir, "restls.yaml", "configRoot: config\nopenapi:\n  shop: shop.json\n")
	writeFile(t, dir, "shop.json", `{"openapi":"3.1.0","info":{"title":"Shop","version":"1"},"paths":{"/orders/{id}":{"get":{
		"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],
		"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","required":["id","items"],"properties":{
			"id":{"type":"integer"},"items":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer"}}}}}}}}},
		"404":{"description":"none"}}}}}}`)
	text := "var a = api.rest.v1.get(\"shop\", {pathParams: [\"orders\", \"1\"]}, {});\n" +
		"try { api.rest.v1.get(\"shop\", {pathParams: [\"orders\", \"3\"]}, {}); } catch (e) {}\nreturn a.body.id;\n"
	script := writeFile(t, dir, "orders.js", text)

	out, errs, rc := runBinary(t, "run", "--json", "--project", project, script)
	if rc != 0 || errs != "" {
		t.Fatalf("restls run: rc %d, stderr %q\n%s", rc, errs, out)
	}
	var res struct {
		Calls []struct {
			Contract []struct{ Rule, Message string }
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range res.Calls {
		for _, n := range c.Contract {
			want = append(want, "contract ("+n.Rule+"): "+n.Message)
		}
	}
	if len(want) != 2 {
		t.Fatalf("restls run --json: contract notes %q, want two (the test's premise)", want)
	}

	t.Run("restls dap", func(t *testing.T) {
		c := startDAP(t, dir, "--project", project)
		c.request("initialize", map[string]any{"adapterID": "restls"})
		c.until("response initialize")
		c.request("launch", map[string]any{"program": script, "live": true})
		c.until("event initialized")
		c.request("configurationDone", nil)
		var console strings.Builder
		for {
			m := c.next()
			if o, ok := m.(*godap.OutputEvent); ok {
				console.WriteString(o.Body.Output)
			}
			if _, ok := m.(*godap.TerminatedEvent); ok {
				break
			}
		}
		if got := contractLines(console.String()); !slices.Equal(got, want) {
			t.Errorf("restls dap's contract notes %q\nwant restls run's %q\nconsole:\n%s", got, want, console.String())
		}
		c.request("disconnect", nil)
		c.until("response disconnect")
	})

	t.Run("designer", func(t *testing.T) {
		cmd := restlsCommand(t, "serve", "--http", "127.0.0.1:0", "--allow-run", "--project", project)
		cmd.Dir = dir
		p := startHTTPCmd(t, cmd)
		d := dialDesignerDAP(t, p.base, p.key)
		d.send("initialize", map[string]any{"adapterID": "restls"})
		d.until("initialize", "")
		d.send("launch", map[string]any{"program": "/designer/scriptService/orders.js", "text": text, "live": true})
		if m := d.until("launch", ""); !m.Success {
			t.Fatalf("launch refused: %s", m.Message)
		}
		d.send("configurationDone", nil)
		console := designerOutput(t, d)
		if got := contractLines(console); !slices.Equal(got, want) {
			t.Errorf("the designer debug session's contract notes %q\nwant restls run's %q\nconsole:\n%s", got, want, console)
		}
		d.send("disconnect", nil)
		d.until("disconnect", "")
	})
}

var contractLine = regexp.MustCompile(`(?m)contract \(.*$`)

// contractLines are the contract notes a debug console said, each as
// "contract (rule): message".
func contractLines(console string) []string {
	return contractLine.FindAllString(console, -1)
}

// TestDesignerDebugShowsNoServerPath: a description that does not load
// is said in restls dap's debug console for the editor (as restls run
// says it), but a designer debug session's page never hears it, whose
// text names the file by its path on the server (web clients see no
// path of the server, docs/decisions.md); the server's log has it.
func TestDesignerDebugShowsNoServerPath(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":1}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	for _, d := range []string{"config", "api"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, dir, "config/application.yml", "scriptservice:\n  api:\n    - serviceId: shop\n      url: "+srv.URL+"/api\n")
	project := writeFile(t, dir, "restls.yaml", "configRoot: config\nopenapi:\n  shop: api/shop.json\n")
	writeFile(t, dir, "api/shop.json", `{"openapi":`) // does not load
	text := "var a = api.rest.v1.get(\"shop\", {pathParams: [\"orders\", \"1\"]}, {});\nreturn a.body.id;\n"
	script := writeFile(t, dir, "orders.js", text)
	const notLoaded = "OpenAPI description " // the description's error, as restls run says it

	t.Run("restls dap", func(t *testing.T) {
		c := startDAP(t, dir, "--project", project)
		c.request("initialize", map[string]any{"adapterID": "restls"})
		c.until("response initialize")
		c.request("launch", map[string]any{"program": script, "live": true})
		c.until("event initialized")
		c.request("configurationDone", nil)
		var console strings.Builder
		for {
			m := c.next()
			if o, ok := m.(*godap.OutputEvent); ok {
				console.WriteString(o.Body.Output)
			}
			if _, ok := m.(*godap.TerminatedEvent); ok {
				break
			}
		}
		if !strings.Contains(console.String(), "restls dap: "+notLoaded) {
			t.Errorf("the editor's debug console does not say the description did not load:\n%s", console.String())
		}
		c.request("disconnect", nil)
		c.until("response disconnect")
	})

	t.Run("designer", func(t *testing.T) {
		cmd := restlsCommand(t, "serve", "--http", "127.0.0.1:0", "--allow-run", "--project", project)
		cmd.Dir = dir
		p := startHTTPCmd(t, cmd)
		d := dialDesignerDAP(t, p.base, p.key)
		d.send("initialize", map[string]any{"adapterID": "restls"})
		d.until("initialize", "")
		d.send("launch", map[string]any{"program": "/designer/scriptService/orders.js", "text": text, "live": true})
		if m := d.until("launch", ""); !m.Success {
			t.Fatalf("launch refused: %s", m.Message)
		}
		d.send("configurationDone", nil)
		console := designerOutput(t, d)
		if !strings.Contains(console, "result: 1") {
			t.Errorf("the designer debug session did not run (the test's premise):\n%s", console)
		}
		if strings.Contains(console, dir) || strings.Contains(console, notLoaded) {
			t.Errorf("the page is shown a path of the server:\n%s", console)
		}
		d.send("disconnect", nil)
		d.until("disconnect", "")
		p.kill(syscall.SIGTERM)
		select {
		case <-p.wait:
		case <-time.After(time.Minute):
			t.Fatal("restls serve still runs a minute after SIGTERM")
		}
		if log := p.stderr.String(); !strings.Contains(log, "OpenAPI description not loaded") {
			t.Errorf("the server's log does not say the description did not load:\n%s", log)
		}
	})
}
