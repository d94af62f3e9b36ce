package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/internal/goldentest"
)

// TestServiceTree checks restls.serviceTree on the repository's example
// configurations: every kind's services with url, description, auth kind
// and an LSP location of the definition; the files read with their
// problems. The credentials of the configuration never appear.
func TestServiceTree(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"config", "config-broken"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), name)
			if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "testdata", name))); err != nil {
				t.Fatal(err)
			}
			srv := newTestServer(t, Options{})
			c := connect(t, srv, clientOptions{initOptions: map[string]any{"restls": map[string]any{"configRoot": dir}}})
			var raw json.RawMessage
			if err := c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: CommandServiceTree}, &raw); err != nil {
				t.Fatal(err)
			}
			var pretty strings.Builder
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			enc := json.NewEncoder(&pretty)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(pretty.String(), string(uri.File(dir)), "file://$DIR")
			got = strings.ReplaceAll(got, dir, "$DIR")
			for _, secret := range []string{
				"Y3JtLXJvYm90OmNybS1zM2NyZXQtcGFzcw==", "pay-Cl1ent-S3cret", "cmVnaXN0cnktdXNlcjpyM2c1dHJ5LXA0c3M=",
				"bm90aWZ5Om4wdDFmeS1wYXNz", "d0cs-Cl1ent-S3cret", "svc-F0rms-Passw0rd", "plain-Pa55word",
			} {
				if strings.Contains(got, secret) {
					t.Errorf("restls.serviceTree shows the credential %q", secret)
				}
			}
			goldentest.Check(t, filepath.Join("testdata", "golden", "servicetree", name+".golden"), got)
		})
	}
}

// TestServiceTreeHiddenPaths: a session shown other paths (the designer)
// gets the shown names and no URI or range, which would be the real paths.
func TestServiceTreeHiddenPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"application.yml": twoServices + "    - serviceId: bad\n"})
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: dir}})
	show := func(p string) string { return "config/" + filepath.Base(p) }
	c := connect(t, srv, clientOptions{session: &SessionOptions{ShowPath: show}})
	var tree ServiceTree
	if err := c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: CommandServiceTree}, &tree); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(tree)
	if strings.Contains(string(raw), dir) {
		t.Errorf("the tree names the real directory %s: %s", dir, raw)
	}
	crm := tree.Kinds[0].Services[0]
	if crm.ServiceID != "crm" || crm.Defined == nil || crm.Defined.File != "config/application.yml" || crm.Defined.URI != "" || crm.Defined.Range != nil {
		t.Errorf("crm = %+v (defined %+v)", crm, crm.Defined)
	}
	if len(tree.Files) != 1 || tree.Files[0].File != "config/application.yml" || tree.Files[0].URI != "" || len(tree.Files[0].Problems) == 0 {
		t.Errorf("files = %+v", tree.Files)
	}
}
