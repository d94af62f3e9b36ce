package isolate

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	"github.com/restls/restls/jslevel"
)

// Registries are the registries of every kind of a snapshot whose
// services come from a registryUrl, as a child that does not fetch them
// receives them: the restls dap child of a designer debug session of a
// restls serve that reads --registry-url. As a dry run's child's
// ChildRequest.Services, they hold each service's serviceId, URL and
// description, never a credential, and never the backend's token.
type Registries struct {
	Sources config.Sources `json:"sources"`
	// Kinds are the services of each kind whose registry is loaded; a
	// kind not among them is not (the backend did not answer for it),
	// and a run of it fails as a dry run's would.
	Kinds map[config.Kind][]Service `json:"kinds"`
	// Unloaded say why each kind not loaded is not: its diagnostics
	// (none of them about a file: the registry's are not).
	Unloaded map[config.Kind][]Unloaded `json:"unloaded,omitempty"`
}

// Unloaded is one diagnostic of a kind whose registry is not loaded.
type Unloaded struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// RegistriesOf are snap's registries as a child receives them.
func RegistriesOf(snap *config.Snapshot) Registries {
	r := Registries{Sources: snap.Sources, Kinds: map[config.Kind][]Service{}}
	for _, k := range config.Kinds {
		reg := snap.For(k)
		if reg == nil || !reg.Loaded {
			if reg != nil && len(reg.Diagnostics) > 0 {
				if r.Unloaded == nil {
					r.Unloaded = map[config.Kind][]Unloaded{}
				}
				for _, d := range reg.Diagnostics {
					r.Unloaded[k] = append(r.Unloaded[k], Unloaded{Code: d.Code, Message: d.Message})
				}
			}
			continue
		}
		r.Kinds[k] = remoteServices(reg)
	}
	return r
}

// Snapshot is the configuration snapshot r describes: each kind's
// registry built as a dry run's child builds it from its request's
// Services (ChildRequest.registry).
func (r Registries) Snapshot() *config.Snapshot {
	regs := make([]*config.Registry, 0, len(config.Kinds))
	for _, k := range config.Kinds {
		services, ok := r.Kinds[k]
		if !ok {
			var diags []config.Diagnostic
			for _, d := range r.Unloaded[k] {
				diags = append(diags, config.Diagnostic{Severity: config.SeverityError, Code: d.Code, Message: d.Message})
			}
			regs = append(regs, config.FailedRegistry(k, diags...))
			continue
		}
		req := ChildRequest{Sources: r.Sources, Services: services}
		regs = append(regs, req.registry(k))
	}
	return config.NewSnapshot(r.Sources, regs...)
}

// DebugRequest is what a server decided of a designer debug session
// before it starts the session's restls dap child, which reads it on its
// stdin before the protocol (restls dap --request-stdin): the
// environment the gate judged and audits, its sources, and the project
// file's facts a run's snapshot holds (its time limits and engine
// level), so that the child reads nothing of a project file (it may
// have changed since the server read it). The launch the child hears
// names the kind the server decided. Like a dry run's ChildRequest it
// holds no credential: the child reads the files the sources name, or,
// for a registryUrl, is given the services the server read
// (Registries), and never the backend's token.
type DebugRequest struct {
	// Environment is the environment's name ("" for none).
	Environment string         `json:"environment,omitempty"`
	Sources     config.Sources `json:"sources"`
	// Registries are the services of a registryUrl (Sources names one);
	// nil for files.
	Registries *Registries `json:"registries,omitempty"`
	// TimeLimits are the project file's timeLimits as the server read
	// them (nil: none).
	TimeLimits map[config.Kind]time.Duration `json:"timeLimits,omitempty"`
	// EngineLevel is the project file's engine as the server read it
	// (jslevel.Latest, the zero value: none): a run beyond it is refused.
	EngineLevel jslevel.Level `json:"engineLevel,omitempty"`
	// APIs are the API descriptions the server's snapshot checks a run's
	// answers against (--openapi and the project file's openapi, paths
	// resolved): the child checks its runs' answers against the same, as
	// a dry run's are (contract notes on each call).
	APIs []API `json:"apis,omitempty"`
}

// API is one API description as the server attached it: to a serviceId,
// or ("" ServiceID) to the services whose url starts with one of its
// servers (workspace.APISource).
type API struct {
	ServiceID string `json:"serviceId,omitempty"`
	Location  string `json:"location"`
}

// DebugRequestOf is the request of a debug session in the environment
// env of snap: its sources, and its registries when they come from a
// registryUrl.
func DebugRequestOf(env string, snap *config.Snapshot) DebugRequest {
	r := DebugRequest{Environment: env}
	if snap == nil {
		return r
	}
	r.Sources = snap.Sources
	if snap.Sources.RegistryURL != "" {
		regs := RegistriesOf(snap)
		r.Registries = &regs
	}
	return r
}

// Snapshot is the configuration the request decided, read now, once, as
// a dry run's child reads its request's (ChildRequest.registry): the
// registry's services as given, else the files of Sources. The child
// runs every launch against it and reads the files no more: a file
// changed after the server decided the session, and after the child
// started, changes nothing of it.
func (r DebugRequest) Snapshot() *config.Snapshot {
	if r.Registries == nil {
		return config.Load(r.Sources)
	}
	return r.Registries.Snapshot()
}

// maxDebugRequest bounds the DebugRequest a child reads: the run child's
// bound on its whole request.
const maxDebugRequest = maxRequest

// WriteDebugRequest writes r to w as one line of JSON.
func WriteDebugRequest(w io.Writer, r DebugRequest) error {
	raw, err := input.TextJSON(r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(raw, '\n'))
	return err
}

// ReadDebugRequest reads the one line of JSON WriteDebugRequest wrote,
// and no byte after it (what follows is the child's conversation).
// Sources naming a registryUrl come with its services.
func ReadDebugRequest(r io.ByteReader) (DebugRequest, error) {
	var line []byte
	for {
		b, err := r.ReadByte()
		if err != nil {
			return DebugRequest{}, fmt.Errorf("read the debug session's request: %w", err)
		}
		if b == '\n' {
			break
		}
		if len(line) >= maxDebugRequest {
			return DebugRequest{}, fmt.Errorf("read the debug session's request: more than %d bytes", maxDebugRequest)
		}
		line = append(line, b)
	}
	var out DebugRequest
	if err := json.Unmarshal(line, &out); err != nil {
		return DebugRequest{}, fmt.Errorf("read the debug session's request: %w", err)
	}
	if (out.Sources.RegistryURL != "") != (out.Registries != nil) || (out.Registries != nil && out.Registries.Sources.RegistryURL != out.Sources.RegistryURL) {
		return DebugRequest{}, fmt.Errorf("read the debug session's request: a registryUrl comes with its services, and services with their registryUrl")
	}
	if _, err := jslevel.Parse(out.EngineLevel.String()); err != nil {
		return DebugRequest{}, fmt.Errorf("read the debug session's request: %w", err)
	}
	for _, a := range out.APIs {
		if a.Location == "" {
			return DebugRequest{}, fmt.Errorf("read the debug session's request: an API description with no location (serviceId %q)", a.ServiceID)
		}
	}
	for k, d := range out.TimeLimits {
		if _, err := config.ParseKind(string(k)); err != nil || d <= 0 {
			return DebugRequest{}, fmt.Errorf("read the debug session's request: timeLimits %q: %v is not a positive time limit of a script kind", k, d)
		}
	}
	return out, nil
}
