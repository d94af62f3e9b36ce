package check

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/config"
)

// TestDiffSince: an entry broken by the change is since-service-unusable;
// one already broken, or new, at the reference gives nothing; timeouts
// and the scheme alone give nothing.
func TestDiffSince(t *testing.T) {
	root := writeTree(t, map[string]string{
		"a/application.yml": "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com\n" +
			"    - serviceId: old\n      url: nope/x\n    - serviceId: geo\n      url: https://geo.example.com\n",
		"b/application.yml": "scriptservice:\n  api:\n    - serviceId: crm\n      url: crm-base/x\n" +
			"    - serviceId: old\n      url: nope/y\n    - serviceId: geo\n      url: http://geo.example.com/\n    - serviceId: new\n      url: https://n.example.com\n",
		"b/config.xml": `<config><acme><restclient><read-timeout default="10000" maximum="60000"/></restclient></acme></config>`,
	})
	a := config.Load(config.Sources{ConfigRoot: filepath.Join(root, "a")})
	b := config.Load(config.Sources{ConfigRoot: filepath.Join(root, "b")})
	got := diffSince(&Since{Ref: "main", Config: a}, b)
	for _, k := range config.Kinds {
		ids := got[k]
		if len(ids) != 1 || len(ids["crm"]) != 1 || ids["crm"][0].code != CodeSinceServiceUnusable {
			t.Errorf("%s: %+v, want crm unusable only", k, ids)
			continue
		}
		if msg := ids["crm"][0].message; !strings.Contains(msg, "usable at main") {
			t.Errorf("%s: message %q", k, msg)
		}
	}
}
