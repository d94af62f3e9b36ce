package config

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/restls/restls/textpos"
)

// Kind is a script kind. Each kind sees its own registry (docs/api.md#script-kinds).
type Kind string

// The script kinds of docs/api.md#script-kinds.
const (
	ScriptService    Kind = "scriptService"
	ScriptTask       Kind = "scriptTask"
	ValidationScript Kind = "validationScript"
)

// Kinds lists every script kind in a stable order.
var Kinds = []Kind{ScriptService, ScriptTask, ValidationScript}

// ParseKind returns the Kind named s, or an error listing the valid kinds.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown script kind %q: use one of %s", s, strings.Join(kindNames(), ", "))
}

func kindNames() []string {
	out := make([]string, len(Kinds))
	for i, k := range Kinds {
		out[i] = string(k)
	}
	return out
}

// UsesHandlerXML reports whether the kind reads script-handler-api.xml
// (script tasks) rather than script-service-api.xml.
func (k Kind) UsesHandlerXML() bool { return k == ScriptTask }

// Severity of a diagnostic.
type Severity int

// Severities, most severe first.
const (
	SeverityError Severity = iota + 1
	SeverityWarning
	SeverityInfo
)

func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityInfo:
		return "info"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// MarshalJSON writes the severity as its name.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// Position is a place in a configuration file; Line and RuneCol are
// 1-based. RuneCol counts characters (Unicode code points), as YAML
// reports them, `restls check` prints them and textpos.RunePos holds
// them; a byte order mark that starts the file takes none. Lines break
// at "\n", "\r\n" and a lone "\r" (textpos). A zero Line means the whole
// file.
type Position struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	RuneCol int    `json:"column"`
}

// RunePos returns the line and column, for a textpos.Mapper of the file.
func (p Position) RunePos() textpos.RunePos { return textpos.RunePos{Line: p.Line, Col: p.RuneCol} }

func (p Position) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.RuneCol)
}

// Diagnostic is a problem found while loading configuration.
type Diagnostic struct {
	Position
	Severity Severity `json:"severity"`
	// Code is stable; see docs/diagnostics.md.
	Code    string `json:"code"`
	Message string `json:"message"`
	// ServiceID or OAuthID names the entry concerned, when there is one.
	ServiceID string `json:"serviceId,omitempty"`
	OAuthID   string `json:"oAuthId,omitempty"`
}

// String formats the diagnostic as file:line:col: severity: message.
func (d Diagnostic) String() string {
	if d.Position == (Position{}) {
		// Not about a file (a remote registry that did not answer).
		return fmt.Sprintf("%s: %s", d.Severity, d.Message)
	}
	return fmt.Sprintf("%s: %s: %s", d.Position, d.Severity, d.Message)
}

// Secret holds a credential. Every way of printing it masks it; only Reveal
// returns the value, and only the REST client should call it.
type Secret struct{ v string }

// NewSecret wraps a credential.
func NewSecret(v string) Secret { return Secret{v} }

// Reveal returns the credential itself.
func (s Secret) Reveal() string { return s.v }

// IsZero reports whether no credential is set.
func (s Secret) IsZero() bool { return s.v == "" }

func (s Secret) String() string {
	if s.v == "" {
		return ""
	}
	return "***"
}

// GoString masks the value in %#v.
func (s Secret) GoString() string { return `config.Secret{"***"}` }

// Format masks the value under every verb, %d and %x included.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, s.GoString())
		return
	}
	_, _ = io.WriteString(f, s.String())
}

// MarshalJSON masks the value.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// AuthType is the kind of authorization configured for a service.
type AuthType string

// Authorization types (docs/api.md#authorization).
const (
	AuthNone  AuthType = ""
	AuthBasic AuthType = "basic"
	AuthOAuth AuthType = "oAuth"
)

// Auth is a service's configured authorization.
type Auth struct {
	Type AuthType
	// EncodedCredentials is base64("login:password") for basic.
	EncodedCredentials Secret
	// OAuthID names the OAuth definition for type oAuth.
	OAuthID string
}

// Service is a usable, resolved service.
type Service struct {
	ID string
	// URL is the resolved absolute address.
	URL string
	// RawURL is the url as written, for example "crm/v2".
	RawURL      string
	Description string
	// RefersTo is the serviceId RawURL refers to, or "".
	RefersTo string
	Auth     Auth
	Defined  Position
}

// Grant types and client authentication methods of docs/api.md#oauth.
const (
	GrantClientCredentials = "client_credentials"
	GrantPassword          = "password"
	ClientSecretPost       = "client_secret_post"
	ClientSecretBasic      = "client_secret_basic"
)

// Param is one additional token-request parameter, in the order written.
type Param struct {
	Name  string
	Value Secret
}

// OAuth is a validated OAuth definition (docs/api.md#oauth).
type OAuth struct {
	ID                         string
	Description                string
	URL                        string
	GrantType                  string
	ClientAuthenticationMethod string
	ClientID                   string
	ClientSecret               Secret
	Username                   string
	Password                   Secret
	// TokenBasicAuth is the encodedCredentials of the nested basic
	// authorization sent on the token request, if any.
	TokenBasicAuth   Secret
	AdditionalParams []Param
	Defined          Position
}

// TimeoutPair is a default and a maximum in milliseconds.
type TimeoutPair struct {
	Default int `json:"default"`
	Maximum int `json:"maximum"`
}

// Timeouts are the restclient limits of docs/api.md#timeouts.
type Timeouts struct {
	Connection TimeoutPair `json:"connectionTimeout"`
	Read       TimeoutPair `json:"readTimeout"`
}

// DefaultTimeouts are the built-in values of docs/api.md#timeouts.
var DefaultTimeouts = Timeouts{
	Connection: TimeoutPair{Default: 1000, Maximum: 10000},
	Read:       TimeoutPair{Default: 10000, Maximum: 30000},
}

// Registry is the immutable result of a load for one script kind. It is
// safe for concurrent use; nothing may modify it after Load returns.
type Registry struct {
	Kind     Kind
	Timeouts Timeouts
	// Diagnostics of every source this kind reads, in reading order.
	Diagnostics []Diagnostic
	// Loaded reports whether at least one source existed and was read.
	Loaded bool

	services map[string]*Service
	ids      []string // sorted
	unusable map[string]Diagnostic
	oauth    map[string]*OAuth
}

// Service returns the usable service id.
func (r *Registry) Service(id string) (*Service, bool) {
	if r == nil {
		return nil, false
	}
	s, ok := r.services[id]
	return s, ok
}

// IDs returns the usable serviceIds, sorted. The caller must not modify it.
func (r *Registry) IDs() []string {
	if r == nil {
		return nil
	}
	return r.ids
}

// Len returns the number of usable services.
func (r *Registry) Len() int { return len(r.IDs()) }

// Unusable returns the error that kept serviceId id out of the registry,
// when id was configured but its entry is broken.
func (r *Registry) Unusable(id string) (Diagnostic, bool) {
	if r == nil {
		return Diagnostic{}, false
	}
	d, ok := r.unusable[id]
	return d, ok
}

// OAuth returns the OAuth definition id.
func (r *Registry) OAuth(id string) (*OAuth, bool) {
	if r == nil {
		return nil, false
	}
	o, ok := r.oauth[id]
	return o, ok
}

// AuthSummary describes a service's authorization for hints, for example
// "basic" or "oAuth client_credentials"; never a credential.
func (r *Registry) AuthSummary(s *Service) string {
	switch s.Auth.Type {
	case AuthBasic:
		return "basic"
	case AuthOAuth:
		if o, ok := r.OAuth(s.Auth.OAuthID); ok {
			return "oAuth " + o.GrantType
		}
		return "oAuth"
	}
	return "none"
}

// Nearest returns up to n usable serviceIds closest to id by edit distance,
// closest first; only reasonably close ids are returned.
func (r *Registry) Nearest(id string, n int) []string {
	return nearest(id, r.IDs(), n)
}

// HintReason says why a registry does or does not offer serviceId hints.
// The values are stable: tools may branch on them.
type HintReason string

// The hint reasons, in the order HintState tries them.
const (
	// NoHintsNoRegistry: there is no registry at all (a nil *Registry).
	NoHintsNoRegistry HintReason = "no-registry"
	// NoHintsNotLoaded: no source was read; Cause says why (the first
	// error, else the first diagnostic).
	NoHintsNotLoaded HintReason = "not-loaded"
	// NoHintsNotFound: no source was read and nothing says why.
	NoHintsNotFound HintReason = "not-found"
	// NoHintsErrors: the sources were read but yield no usable service and
	// at least one error; Cause is the first error. Hints here would call
	// every serviceId unknown because of a broken file.
	NoHintsErrors HintReason = "errors"
	// HintsNoneDeclared: the configuration loads and declares no service;
	// hints are offered (every serviceId is then unknown).
	HintsNoneDeclared HintReason = "none-declared"
	// HintsServicesWithErrors: usable services, and errors on others.
	HintsServicesWithErrors HintReason = "services-with-errors"
	// HintsServices: usable services and no error.
	HintsServices HintReason = "services"
)

// HintState is whether a registry offers serviceId hints and why (not):
// what the language server's restls/status, GET /v1/status and the hint
// engine all go by.
type HintState struct {
	// Offered reports whether serviceId hints (completion, hover, the
	// "unknown serviceId" check) are offered.
	Offered bool
	Reason  HintReason
	// Services is the number of usable services; Errors the number of
	// error diagnostics.
	Services, Errors int
	// Cause is the diagnostic that says why no hints are offered, for
	// NoHintsNotLoaded and NoHintsErrors.
	Cause Diagnostic
}

// HintState decides whether r offers serviceId hints. A registry that was
// not loaded offers none, whatever else it holds; one that was loaded
// offers none only when it has no usable service and an error. r may be
// nil.
func (r *Registry) HintState() HintState {
	if r == nil {
		return HintState{Reason: NoHintsNoRegistry}
	}
	h := HintState{Services: r.Len()}
	first := -1
	for i := range r.Diagnostics {
		if r.Diagnostics[i].Severity == SeverityError {
			h.Errors++
			if first < 0 {
				first = i
			}
		}
	}
	switch {
	case !r.Loaded && first >= 0:
		h.Reason, h.Cause = NoHintsNotLoaded, r.Diagnostics[first]
	case !r.Loaded && len(r.Diagnostics) > 0:
		h.Reason, h.Cause = NoHintsNotLoaded, r.Diagnostics[0]
	case !r.Loaded:
		h.Reason = NoHintsNotFound
	case h.Services == 0 && first >= 0:
		h.Reason, h.Cause = NoHintsErrors, r.Diagnostics[first]
	case h.Services == 0:
		h.Offered, h.Reason = true, HintsNoneDeclared
	case h.Errors > 0:
		h.Offered, h.Reason = true, HintsServicesWithErrors
	default:
		h.Offered, h.Reason = true, HintsServices
	}
	return h
}

// Message is one line for a status bar: "12 services", or
// "no serviceId hints: " and why.
func (h HintState) Message() string {
	switch h.Reason {
	case NoHintsNoRegistry:
		return "no serviceId hints: no registry loaded"
	case NoHintsNotFound:
		return "no serviceId hints: no configuration found"
	case NoHintsNotLoaded, NoHintsErrors:
		return "no serviceId hints: " + h.Cause.String()
	case HintsNoneDeclared:
		return "0 services: the configuration declares none"
	case HintsServicesWithErrors:
		return fmt.Sprintf("%d services, %d configuration errors", h.Services, h.Errors)
	default:
		return fmt.Sprintf("%d services", h.Services)
	}
}

// HintsEntry is one entry of the hints map of docs/api.md#editor-hints.
type HintsEntry struct {
	URL         string `json:"url"`
	Description string `json:"description"`
}

// HintsMap returns serviceId -> resolved url and description, the map that
// editors receive. It never holds credentials.
func (r *Registry) HintsMap() map[string]HintsEntry {
	m := make(map[string]HintsEntry, r.Len())
	for _, id := range r.IDs() {
		s := r.services[id]
		m[id] = HintsEntry{URL: s.URL, Description: s.Description}
	}
	return m
}

// NewRegistry builds a registry from already-resolved services, for callers
// that receive the hints map from elsewhere (a remote restls backend) and
// for tests. Services without a Defined position are fine.
func NewRegistry(kind Kind, services []Service, timeouts Timeouts, diags []Diagnostic) *Registry {
	r := &Registry{Kind: kind, Timeouts: timeouts, Diagnostics: diags, Loaded: true,
		services: make(map[string]*Service, len(services)),
		unusable: map[string]Diagnostic{}, oauth: map[string]*OAuth{}}
	for i := range services {
		s := services[i]
		r.services[s.ID] = &s
	}
	r.finish()
	return r
}

// FailedRegistry builds the registry of a kind whose sources could not be
// read (a remote backend that did not answer, sources that may not be
// used): no service, the default timeouts, not Loaded, and diags saying
// why. It offers no serviceId hints (see HintState).
func FailedRegistry(kind Kind, diags ...Diagnostic) *Registry {
	r := NewRegistry(kind, nil, DefaultTimeouts, diags)
	r.Loaded = false
	return r
}

func (r *Registry) finish() {
	r.ids = make([]string, 0, len(r.services))
	for id := range r.services {
		r.ids = append(r.ids, id)
	}
	sort.Strings(r.ids)
}

// Snapshot is the result of one load: a registry per kind.
type Snapshot struct {
	Sources    Sources
	registries map[Kind]*Registry
	entries    *lazyEntries // every definition as written (entries.go)
}

// For returns the registry of kind k; never nil for a known kind.
func (s *Snapshot) For(k Kind) *Registry {
	if s == nil {
		return nil
	}
	return s.registries[k]
}

// Diagnostics returns the diagnostics of every kind, without duplicates
// (properties are read by every kind), ordered by file and position.
func (s *Snapshot) Diagnostics() []Diagnostic {
	seen := map[Diagnostic]bool{}
	var out []Diagnostic
	for _, k := range Kinds {
		for _, d := range s.For(k).Diagnostics {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.RuneCol < b.RuneCol
	})
	return out
}
