package runtime

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/restclient"
)

// TestReplayKeepsTheBodyAsRecorded: a fixture body reaches the script
// with its keys in document order, the trace keeps its numbers as
// written, and a bodyText that is not JSON stays text.
func TestReplayKeepsTheBodyAsRecorded(t *testing.T) {
	snap := config.Load(config.Sources{ConfigRoot: "../testdata/config"})
	reg := snap.For(config.ScriptService)
	for name, doc := range map[string]string{
		"mocks.yaml": `
- serviceId: crm-customers
  path: "1"
  body: {zeta: 1, alpha: 1.0, big: 123456789012345678901234567890, mid: {b: 2, a: 1}}
- serviceId: crm-customers
  path: "2"
  status: 500
  bodyText: "oops {not json"
`,
		"mocks.json": `[
  {"serviceId": "crm-customers", "path": "1", "body": {"zeta": 1, "alpha": 1.0, "big": 123456789012345678901234567890, "mid": {"b": 2, "a": 1}}},
  {"serviceId": "crm-customers", "path": "2", "status": 500, "bodyText": "oops {not json"}
]`,
	} {
		m, err := restclient.ParseMock(name, []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		res := run(t, reg, lines(
			`var r = api.rest.v1.get("crm-customers", {pathParams: ["1"]}, {});`,
			`var text;`,
			`try { api.rest.v1.get("crm-customers", {pathParams: ["2"]}, {}); } catch (e) { text = [typeof e.body, e.body]; }`,
			`return {keys: Object.keys(r.body), mid: Object.keys(r.body.mid), json: JSON.stringify(r.body), text: text};`,
		), func(o *Options) { o.Mock = m })
		jsonEqual(t, mustReturn(t, res), `{"keys":["zeta","alpha","big","mid"],"mid":["b","a"],
			"json":"{\"zeta\":1,\"alpha\":1,\"big\":1.2345678901234568e+29,\"mid\":{\"b\":2,\"a\":1}}",
			"text":["string","oops {not json"]}`)
		var compact bytes.Buffer
		_ = json.Compact(&compact, res.Calls[0].ResponseBody)
		if got := compact.String(); got != `{"zeta":1,"alpha":1.0,"big":123456789012345678901234567890,"mid":{"b":2,"a":1}}` {
			t.Errorf("%s: the trace shows %s", name, got)
		}
	}
}

// TestNoSecretInARecording records the scripts of TestNoSecretInAnyOutput
// (echo services reflect every credential into the body) and scans each
// recorded file for every secret of the configuration and every token
// issued, raw and base64-encoded.
func TestNoSecretInARecording(t *testing.T) {
	reg, secrets, tokens := secretSetup(t)
	dir := t.TempDir()
	var files []string
	for _, ext := range []string{"yaml", "json"} {
		for name, src := range secretScripts {
			file := filepath.Join(dir, name+".mock."+ext)
			rec, err := restclient.NewRecorder(restclient.RecordOptions{File: file})
			if err != nil {
				t.Fatal(err)
			}
			Run(context.Background(), Options{Source: src, Filename: name + ".js", Registry: reg, Record: rec})
			if err := rec.Save(); err != nil {
				t.Fatal(err)
			}
			files = append(files, file)
		}
	}
	all := append(append(secrets, tokens()...), "hard-coded-Script-Token")
	masked := false
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		masked = masked || bytes.Contains(data, []byte("***"))
		for _, s := range all {
			for _, form := range []string{s, base64.StdEncoding.EncodeToString([]byte(s))} {
				if i := bytes.Index(data, []byte(form)); i >= 0 {
					t.Errorf("%q leaks in %s: ...%s...", form, filepath.Base(f), data[max(0, i-60):min(len(data), i+60)])
				}
			}
		}
		if _, err := restclient.LoadMock(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !masked {
		t.Error("no masked value in any recording: the echoes were not recorded")
	}
}
