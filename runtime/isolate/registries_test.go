package isolate

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/restls/restls/config"
)

// TestRegistriesRoundTrip: the registries a restls dap child reads are
// the ones its parent wrote, each kind's services as a dry run's child
// has them (no credential), an unloaded kind unloaded with its
// diagnostics, and the conversation after them left unread.
func TestRegistriesRoundTrip(t *testing.T) {
	src := config.Sources{RegistryURL: "http://127.0.0.1:7373"}
	secret := config.Service{ID: "crm", URL: "http://127.0.0.1:9/api", RawURL: "http://127.0.0.1:9/api", Description: "CRM",
		Auth: config.Auth{Type: config.AuthBasic, EncodedCredentials: config.NewSecret("c2VjcmV0OnNlY3JldA==")}}
	diag := config.Diagnostic{Severity: config.SeverityError, Code: "registry-url-unreachable", Message: "no answer"}
	snap := config.NewSnapshot(src,
		config.NewRegistry(config.ScriptService, []config.Service{secret}, config.DefaultTimeouts, nil),
		config.FailedRegistry(config.ScriptTask, diag))
	var buf bytes.Buffer
	if err := WriteRegistries(&buf, RegistriesOf(snap)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "c2VjcmV0") {
		t.Fatalf("the registries carry a credential: %s", buf.String())
	}
	buf.WriteString("Content-Length: 2\r\n\r\n{}")
	r := bufio.NewReader(&buf)
	regs, err := ReadRegistries(r)
	if err != nil {
		t.Fatal(err)
	}
	if rest, _ := io.ReadAll(r); string(rest) != "Content-Length: 2\r\n\r\n{}" {
		t.Errorf("left after the registries: %q", rest)
	}
	got := regs.Snapshot()
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

// FuzzReadRegistries: whatever comes before the conversation, reading
// it ends with registries or an error, never a crash.
func FuzzReadRegistries(f *testing.F) {
	f.Add([]byte(`{"sources":{"registryUrl":"http://127.0.0.1:1"},"kinds":{"scriptService":[{"serviceId":"a","url":"http://x"}]}}` + "\n"))
	f.Add([]byte(`{"sources":{},"kinds":{}}` + "\n"))
	f.Add([]byte(`{"sources":{"registryUrl":"u"},"unloaded":{"scriptTask":[{"severity":"error","code":"c","message":"m"}]}}` + "\n"))
	f.Add([]byte(strings.Repeat("[", 100000) + "\n"))
	f.Add([]byte(`{"sources":{"registryUrl":"u"},"kinds":{"scriptService":[` + strings.Repeat(`{"serviceId":"s","url":"http://x"},`, 2000) + `{}]}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		regs, err := ReadRegistries(bufio.NewReader(bytes.NewReader(data)))
		if err == nil {
			_ = regs.Snapshot()
		}
	})
}
