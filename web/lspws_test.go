package web

import (
	"slices"
	"testing"

	"github.com/restls/restls/config"
)

func TestLSPCompletionOverWebSocket(t *testing.T) {
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	ctx := testCtx(t)
	c, err := dialLSP(t, ctx, wsURL(hs), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	const uri = "file:///designer/a.js"
	// A statement end between the two lines: "api.rest.v1.\napi" would be
	// one member chain.
	text := "api.rest.v1.;\napi.rest.v1.get(\"\n"
	if err := c.open(ctx, uri, text); err != nil {
		t.Fatal(err)
	}
	calls, err := c.complete(ctx, uri, 0, len("api.rest.v1."))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"get", "delete", "post", "put", "patch"} {
		if !slices.Contains(calls, want) {
			t.Errorf("completion after api.rest.v1. = %q, want %q among them", calls, want)
		}
	}
	ids, err := c.complete(ctx, uri, 1, len(`api.rest.v1.get("`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"crm", "geo", "crm-customers"} {
		if !slices.Contains(ids, want) {
			t.Errorf("completion in the serviceId argument = %q, want %q among them", ids, want)
		}
	}
}
