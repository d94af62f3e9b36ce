package lsp

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/restls/restls/config"
)

// TestEnvironmentSetting: the "environment" setting picks one of the
// project file's environments as the session's sources, restls/status
// lists the environments and names the one in force, an unknown name is a
// warning that names the ones there are, and a designer session, which
// may not choose sources, may still choose one of the server's
// environments (nothing it names is read).
func TestEnvironmentSetting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"test/application.yml": "scriptservice:\n  api:\n    - serviceId: only-test\n      url: https://test.example.test\n",
		"prod/application.yml": "scriptservice:\n  api:\n    - serviceId: only-prod\n      url: https://prod.example.test\n",
	})
	envs := map[string]config.Sources{
		"test": {ConfigRoot: filepath.Join(dir, "test")},
		"prod": {ConfigRoot: filepath.Join(dir, "prod")},
	}
	ws := projectSession(t, dir, "environments:\n  test: {configRoot: test}\n  prod: {configRoot: prod}\ndefaultEnvironment: test\n", envs["test"])
	srv := newTestServer(t, Options{PollInterval: -1, Session: ws})
	services := func(st Status) int { return st.Kinds[0].Services }

	c := connect(t, srv, clientOptions{root: dir})
	c.waitFor("status", func() bool { return len(c.statuses) > 0 })
	st := c.lastStatus()
	if st.Environment != "test" || !slices.Equal(st.Environments, []string{"prod", "test"}) || services(st) != 1 {
		t.Fatalf("default: environment %q of %v, %d services", st.Environment, st.Environments, services(st))
	}

	p := connect(t, srv, clientOptions{root: dir, initOptions: map[string]any{"environment": "prod"}})
	p.waitFor("status of prod", func() bool {
		return len(p.statuses) > 0 && p.statuses[len(p.statuses)-1].Sources.ConfigRoot == envs["prod"].ConfigRoot
	})
	if st := p.lastStatus(); st.Environment != "prod" || services(st) != 1 {
		t.Errorf("environment prod: status %+v", st)
	}

	u := connect(t, srv, clientOptions{root: dir, initOptions: map[string]any{"environment": "staging"}})
	u.waitFor("a warning", func() bool { return len(u.messages) > 0 })
	if m := u.messages[0]; m.Type != protocol.MessageTypeWarning || !strings.Contains(m.Message, `"staging"`) || !strings.Contains(m.Message, "prod, test") {
		t.Errorf("unknown environment: %+v", m)
	}
	u.waitFor("status", func() bool { return len(u.statuses) > 0 })
	if st := u.lastStatus(); st.Environment != "test" || st.Sources.ConfigRoot != envs["test"].ConfigRoot {
		t.Errorf("unknown environment: status %+v, want the default's", st)
	}

	refused := &config.Diagnostic{Severity: config.SeverityError, Code: "sources-refused", Message: "refused"}
	d := connect(t, srv, clientOptions{root: dir, initOptions: map[string]any{"environment": "prod"}, session: &SessionOptions{SourcesRefused: refused}})
	d.waitFor("status of prod", func() bool {
		return len(d.statuses) > 0 && d.statuses[len(d.statuses)-1].Sources.ConfigRoot == envs["prod"].ConfigRoot
	})
	if st := d.lastStatus(); services(st) != 1 || st.Problems["error"] != 0 {
		t.Errorf("a designer session choosing an environment: status %+v", st)
	}
	o := connect(t, srv, clientOptions{root: dir, initOptions: map[string]any{"configRoot": dir}, session: &SessionOptions{SourcesRefused: refused}})
	o.waitFor("status", func() bool { return len(o.statuses) > 0 && o.statuses[len(o.statuses)-1].Sources.ConfigRoot == dir })
	if st := o.lastStatus(); st.Kinds[0].Hints {
		t.Errorf("a designer session naming a directory itself got hints: %+v", st)
	}
}
