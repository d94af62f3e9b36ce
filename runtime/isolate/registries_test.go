package isolate

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/jslevel"
)

// TestDebugRequestRoundTrip: the request a restls dap child reads is
// the one its parent wrote: the environment, the sources, and for a
// registryUrl each kind's services as a dry run's child has them (no
// credential), an unloaded kind unloaded with its diagnostics; the
// conversation after it is left unread.
func TestDebugRequestRoundTrip(t *testing.T) {
	src := config.Sources{RegistryURL: "http://127.0.0.1:7373"}
	secret := config.Service{ID: "crm", URL: "http://127.0.0.1:9/api", RawURL: "http://127.0.0.1:9/api", Description: "CRM",
		Auth: config.Auth{Type: config.AuthBasic, EncodedCredentials: config.NewSecret("c2VjcmV0OnNlY3JldA==")}}
	diag := config.Diagnostic{Severity: config.SeverityError, Code: "registry-url-unreachable", Message: "no answer"}
	snap := config.NewSnapshot(src,
		config.NewRegistry(config.ScriptService, []config.Service{secret}, config.DefaultTimeouts, nil),
		config.FailedRegistry(config.ScriptTask, diag))
	var buf bytes.Buffer
	if err := WriteDebugRequest(&buf, DebugRequestOf("test", snap)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "c2VjcmV0") {
		t.Fatalf("the request carries a credential: %s", buf.String())
	}
	buf.WriteString("Content-Length: 2\r\n\r\n{}")
	r := bufio.NewReader(&buf)
	req, err := ReadDebugRequest(r)
	if err != nil {
		t.Fatal(err)
	}
	if rest, _ := io.ReadAll(r); string(rest) != "Content-Length: 2\r\n\r\n{}" {
		t.Errorf("left after the request: %q", rest)
	}
	if req.Environment != "test" || req.Sources.RegistryURL != src.RegistryURL {
		t.Errorf("environment %q, sources %+v, want test and %+v", req.Environment, req.Sources, src)
	}
	got := req.Snapshot()
	if got.Sources.RegistryURL != src.RegistryURL {
		t.Errorf("sources %+v, want %+v", got.Sources, src)
	}
	reg := got.For(config.ScriptService)
	s, ok := reg.Service("crm")
	if !reg.Loaded || !ok || s.URL != secret.URL || s.Description != "CRM" || s.Auth.Type != config.AuthNone {
		t.Errorf("scriptService: loaded %v, crm %+v", reg.Loaded, s)
	}
	if task := got.For(config.ScriptTask); task.Loaded || len(task.Diagnostics) != 1 || task.Diagnostics[0].Message != "no answer" {
		t.Errorf("scriptTask: loaded %v, diagnostics %+v, want unloaded with the parent's", task.Loaded, task.Diagnostics)
	}
}

// TestDebugRequestOfFiles: a request for configuration files carries
// the environment and its sources, no services (the child reads the
// files), and the project file's time limits and engine level; a
// registryUrl without its services is refused, and so are an engine
// level and time limits the project file could not have.
func TestDebugRequestOfFiles(t *testing.T) {
	src := config.Sources{ConfigRoot: "/etc/webforms", Properties: []string{"a.yml"}}
	sent := DebugRequestOf("prod", config.NewSnapshot(src))
	sent.TimeLimits, sent.EngineLevel = map[config.Kind]time.Duration{config.ScriptTask: 2500 * time.Millisecond}, jslevel.ES5_1
	sent.APIs = []API{{ServiceID: "shop", Location: "/apis/shop.json"}, {Location: "http://127.0.0.1:1/api.json"}}
	var buf bytes.Buffer
	if err := WriteDebugRequest(&buf, sent); err != nil {
		t.Fatal(err)
	}
	req, err := ReadDebugRequest(bufio.NewReader(&buf))
	if err != nil {
		t.Fatal(err)
	}
	if req.Environment != "prod" || req.Sources.ConfigRoot != src.ConfigRoot || len(req.Sources.Properties) != 1 || req.Registries != nil {
		t.Errorf("request %+v, want prod with the sources and no services", req)
	}
	if req.EngineLevel != jslevel.ES5_1 || len(req.TimeLimits) != 1 || req.TimeLimits[config.ScriptTask] != 2500*time.Millisecond {
		t.Errorf("engine level %v, time limits %v; want es5.1 and scriptTask 2.5s", req.EngineLevel, req.TimeLimits)
	}
	if !slices.Equal(req.APIs, sent.APIs) {
		t.Errorf("descriptions %v, want %v", req.APIs, sent.APIs)
	}
	for _, line := range []string{`{"sources":{"registryUrl":"http://x"}}`, `{"sources":{},"registries":{"sources":{"registryUrl":"http://x"},"kinds":{}}}`,
		`{"sources":{},"engineLevel":200}`, `{"sources":{},"timeLimits":{"nope":5000000}}`, `{"sources":{},"timeLimits":{"scriptTask":0}}`,
		`{"sources":{},"apis":[{"serviceId":"shop"}]}`} {
		if _, err := ReadDebugRequest(bufio.NewReader(strings.NewReader(line + "\n"))); err == nil {
			t.Errorf("%s read without an error", line)
		}
	}
}

// FuzzReadDebugRequest: whatever comes before the conversation, reading
// it ends with a request or an error, never a crash.
func FuzzReadDebugRequest(f *testing.F) {
	f.Add([]byte(`{"environment":"a","sources":{"registryUrl":"http://127.0.0.1:1"},"registries":{"sources":{"registryUrl":"http://127.0.0.1:1"},"kinds":{"scriptService":[{"serviceId":"a","url":"http://x"}]}}}` + "\n"))
	f.Add([]byte(`{"sources":{},"kinds":{}}` + "\n"))
	f.Add([]byte(`{"environment":"prod","sources":{"configRoot":"/etc","properties":["a.yml","b.properties"]}}` + "\n"))
	f.Add([]byte(`{"sources":{"configRoot":"/etc"},"timeLimits":{"scriptTask":5000000000,"scriptService":-1},"engineLevel":1}` + "\n"))
	f.Add([]byte(`{"sources":{"registryUrl":"u"},"registries":{"sources":{"registryUrl":"u"},"unloaded":{"scriptTask":[{"severity":"error","code":"c","message":"m"}]}}}` + "\n"))
	f.Add([]byte(`{"sources":{"configRoot":"/etc"},"apis":[{"serviceId":"shop","location":"/apis/shop.json"},{"location":"http://127.0.0.1:1/api.json"},{"serviceId":"x","location":""}]}` + "\n"))
	f.Add([]byte(strings.Repeat("[", 100000) + "\n"))
	f.Add([]byte(`{"sources":{"registryUrl":"u"},"registries":{"sources":{"registryUrl":"u"},"kinds":{"scriptService":[` + strings.Repeat(`{"serviceId":"s","url":"http://x"},`, 2000) + `{}]}}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := ReadDebugRequest(bufio.NewReader(bytes.NewReader(data)))
		if err == nil && req.Registries != nil {
			_ = req.Snapshot() // files would be read from the disk: not here
		}
	})
}

// TestDebugRequestSnapshotReadsTheFiles: a debug request of files is read
// when its Snapshot is taken, as a dry run's child reads its request's
// sources (it was nil, and the child's session read, and reread, the
// files itself).
func TestDebugRequestSnapshotReadsTheFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "application.yml"), []byte("scriptservice:\n  api:\n    - serviceId: orders\n      url: https://orders.example.com/api\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	req := DebugRequestOf("", config.NewSnapshot(config.Sources{ConfigRoot: dir}))
	reg := req.Snapshot().For(config.ScriptService)
	if reg == nil || !reg.Loaded {
		t.Fatalf("registry %+v, want the file's", reg)
	}
	if s, ok := reg.Service("orders"); !ok || s.URL != "https://orders.example.com/api" {
		t.Errorf("orders: %+v %v, want the file's url", s, ok)
	}
}
