package config

import "testing"

// TestHintState is the one rule for "does this registry offer serviceId
// hints, and if not, why" that restls/status, /v1/status and the hint
// engine share. A registry that was not loaded offers none whatever else it
// holds, and the reason is its first error before any other diagnostic.
func TestHintState(t *testing.T) {
	pos := Position{File: "/etc/acme/application.yml", Line: 3, RuneCol: 5}
	errD := Diagnostic{Position: pos, Severity: SeverityError, Code: CodeSyntax, Message: "bad"}
	warnD := Diagnostic{Position: pos, Severity: SeverityWarning, Code: CodeInsecureURL, Message: "http"}
	infoD := Diagnostic{Position: pos, Severity: SeverityInfo, Code: CodeNoConfiguration, Message: "no configuration found: looked for x"}
	remoteD := Diagnostic{Severity: SeverityError, Code: "registry-url-unreachable", Message: "registryUrl http://h: no answer"}
	svc := []Service{{ID: "a", URL: "https://a.example.com"}, {ID: "b", URL: "https://b.example.com"}}
	notLoaded := func(r *Registry) *Registry { r.Loaded = false; return r }

	tests := []struct {
		name    string
		reg     *Registry
		offered bool
		reason  HintReason
		cause   Diagnostic
		msg     string
	}{
		{"nil", nil, false, NoHintsNoRegistry, Diagnostic{}, "no serviceId hints: no registry loaded"},
		{"failed, nothing said", FailedRegistry(ScriptService), false, NoHintsNotFound, Diagnostic{}, "no serviceId hints: no configuration found"},
		{"failed, remote error", FailedRegistry(ScriptTask, remoteD), false, NoHintsNotLoaded, remoteD,
			"no serviceId hints: error: registryUrl http://h: no answer"},
		{"not found (info)", FailedRegistry(ScriptService, infoD), false, NoHintsNotLoaded, infoD,
			"no serviceId hints: /etc/acme/application.yml:3:5: info: no configuration found: looked for x"},
		{"not loaded, the error before a warning", FailedRegistry(ScriptService, warnD, errD), false, NoHintsNotLoaded, errD,
			"no serviceId hints: /etc/acme/application.yml:3:5: error: bad"},
		{"not loaded wins over services", notLoaded(NewRegistry(ScriptService, svc, DefaultTimeouts, nil)), false, NoHintsNotFound, Diagnostic{},
			"no serviceId hints: no configuration found"},
		{"loaded, no service, an error", NewRegistry(ScriptService, nil, DefaultTimeouts, []Diagnostic{warnD, errD}), false, NoHintsErrors, errD,
			"no serviceId hints: /etc/acme/application.yml:3:5: error: bad"},
		{"loaded, declares none", NewRegistry(ScriptService, nil, DefaultTimeouts, []Diagnostic{warnD}), true, HintsNoneDeclared, Diagnostic{},
			"0 services: the configuration declares none"},
		{"services and errors", NewRegistry(ScriptService, svc, DefaultTimeouts, []Diagnostic{errD, warnD, errD}), true, HintsServicesWithErrors, Diagnostic{},
			"2 services, 2 configuration errors"},
		{"services", NewRegistry(ScriptService, svc, DefaultTimeouts, []Diagnostic{warnD}), true, HintsServices, Diagnostic{}, "2 services"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.reg.HintState()
			if h.Offered != tt.offered || h.Reason != tt.reason || h.Cause != tt.cause {
				t.Errorf("HintState() = %+v, want offered %v, reason %s, cause %+v", h, tt.offered, tt.reason, tt.cause)
			}
			if got := h.Message(); got != tt.msg {
				t.Errorf("Message() = %q, want %q", got, tt.msg)
			}
			if h.Services != tt.reg.Len() {
				t.Errorf("Services = %d, want %d", h.Services, tt.reg.Len())
			}
		})
	}
}

func TestFailedRegistryAndSnapshot(t *testing.T) {
	d := Diagnostic{Severity: SeverityError, Code: "some-code", Message: "why"}
	r := FailedRegistry(ScriptTask, d)
	if r.Kind != ScriptTask || r.Loaded || r.Len() != 0 || r.Timeouts != DefaultTimeouts || len(r.Diagnostics) != 1 || r.Diagnostics[0] != d {
		t.Errorf("FailedRegistry = %+v", r)
	}
	src := Sources{RegistryURL: "http://127.0.0.1:1"}
	s := FailedSnapshot(src, d)
	if !s.Sources.Equal(src) {
		t.Errorf("FailedSnapshot sources = %+v", s.Sources)
	}
	for _, k := range Kinds {
		r := s.For(k)
		if r == nil || r.Kind != k || r.Loaded || r.HintState().Cause != d {
			t.Errorf("FailedSnapshot.For(%s) = %+v", k, r)
		}
	}
}

func TestSourcesEqual(t *testing.T) {
	base := Sources{ConfigRoot: "/r", Properties: []string{"a.yml", "b.yml"}, ServiceXML: "s.xml", HandlerXML: "h.xml",
		PlatformConfig: "p.yml", RegistryURL: "http://h"}
	if !base.Equal(base) || !(Sources{}).Equal(Sources{Properties: []string{}}) {
		t.Fatal("equal sources are not Equal")
	}
	for name, change := range map[string]func(*Sources){
		"configRoot":     func(s *Sources) { s.ConfigRoot = "/other" },
		"properties":     func(s *Sources) { s.Properties = []string{"b.yml", "a.yml"} },
		"fewer props":    func(s *Sources) { s.Properties = s.Properties[:1] },
		"serviceXml":     func(s *Sources) { s.ServiceXML = "x" },
		"handlerXml":     func(s *Sources) { s.HandlerXML = "x" },
		"platformConfig": func(s *Sources) { s.PlatformConfig = "x" },
		"registryUrl":    func(s *Sources) { s.RegistryURL = "" },
	} {
		o := base
		o.Properties = append([]string(nil), base.Properties...)
		change(&o)
		if base.Equal(o) || o.Equal(base) {
			t.Errorf("sources differing in %s are Equal", name)
		}
	}
}
