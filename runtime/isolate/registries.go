package isolate

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
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

// maxRegistries bounds the Registries a child reads: the run child's
// bound on its whole request.
const maxRegistries = maxRequest

// WriteRegistries writes r to w as one line of JSON.
func WriteRegistries(w io.Writer, r Registries) error {
	raw, err := input.TextJSON(r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(raw, '\n'))
	return err
}

// ReadRegistries reads the one line of JSON WriteRegistries wrote, and
// no byte after it (what follows is the child's conversation). Its
// sources must name a registryUrl.
func ReadRegistries(r io.ByteReader) (Registries, error) {
	var line []byte
	for {
		b, err := r.ReadByte()
		if err != nil {
			return Registries{}, fmt.Errorf("read the registry's services: %w", err)
		}
		if b == '\n' {
			break
		}
		if len(line) >= maxRegistries {
			return Registries{}, fmt.Errorf("read the registry's services: more than %d bytes", maxRegistries)
		}
		line = append(line, b)
	}
	var out Registries
	if err := json.Unmarshal(line, &out); err != nil {
		return Registries{}, fmt.Errorf("read the registry's services: %w", err)
	}
	if out.Sources.RegistryURL == "" {
		return Registries{}, fmt.Errorf("read the registry's services: they name no registryUrl")
	}
	return out, nil
}
