package web

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/restls/restls/lsp"
)

// TestProxyLSPFaults: over /lsp the designer's fault exploration is a
// run the gate judges by role: a viewer is refused with the role it
// needs, a mocker explores (every rerun is answered by the Mocks tab's
// fixtures: a mock run), and each run is audited as the exploration's.
func TestProxyLSPFaults(t *testing.T) {
	t.Parallel()
	rs := newRoleServer(t, "test")
	ctx := testCtx(t)
	const doc = "file:///designer/scriptService/script.js"
	const script = "try {\n  return api.rest.v1.get(\"crm-customers\", {pathParams: [\"42\"]}, {}).body.name;\n} catch (e) {\n  return e.status.code;\n}"
	arg := map[string]any{"uri": doc, "mock": "- {serviceId: crm-customers, body: {name: Ada}}\n", "outcomes": []string{"404", "connect-timeout"}}
	for _, tc := range []struct {
		user, groups string
		explores     bool
	}{{"vera", "", false}, {"ann", "authors", true}} {
		h := http.Header{}
		h.Set(DefaultUserHeader, tc.user)
		h.Set(DefaultGroupsHeader, tc.groups)
		c, err := dialLSP(t, ctx, "ws"+strings.TrimPrefix(rs.hs, "http")+"/lsp", &websocket.DialOptions{HTTPHeader: h})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.open(ctx, doc, script); err != nil {
			t.Fatal(err)
		}
		var out lsp.FaultsResult
		err = c.call(ctx, "workspace/executeCommand", map[string]any{"command": lsp.CommandExploreFaults, "arguments": []any{arg}}, &out)
		switch {
		case tc.explores && (err != nil || out.Runs != 2 || out.Failing != 1 || len(out.Sites) != 1 || out.Sites[0].Tally != "1 handled, 1 crashed"):
			t.Errorf("%s: %+v, %v", tc.user, out, err)
		case !tc.explores && (err == nil || !strings.Contains(err.Error(), "role mocker")):
			t.Errorf("%s: explored, or the refusal does not name the role: %v", tc.user, err)
		}
		c.close()
	}
	var summary []string
	for _, r := range rs.records(t) {
		summary = append(summary, r.Event+"/"+r.User+"/"+r.Mode+"/"+r.Via+"/"+r.Outcome)
	}
	want := []string{"run/vera/mock/faults/refused", "run/ann/mock/faults/returned", "run/ann/mock/faults/returned", "run/ann/mock/faults/threw"}
	if !slices.Equal(summary, want) {
		t.Errorf("audit %q, want %q", summary, want)
	}
}
