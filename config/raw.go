package config

import (
	"fmt"
	"strings"
)

// field is one value as written in a source, with where it was written.
type field struct {
	value string
	set   bool
	pos   Position
}

// rawAuth is an authorization block as written.
type rawAuth struct {
	typ                field
	encodedCredentials field
	id                 field
	pos                Position
}

// rawAPI is one api entry as written, before resolution.
type rawAPI struct {
	serviceID   field
	url         field
	description field
	auth        *rawAuth
	pos         Position
}

// rawOAuth is one oAuth definition as written.
type rawOAuth struct {
	fields map[string]field // by attribute name
	auth   *rawAuth
	params []Param
	pos    Position
}

func (o *rawOAuth) get(name string) field { return o.fields[name] }

// parsed is what one source file yields.
type parsed struct {
	file   string
	apis   []rawAPI
	oauths []rawOAuth
	diags  []Diagnostic
}

// Known names, for typo suggestions.
var (
	apiFields   = []string{"serviceId", "url", "description", "authorization"}
	authFields  = []string{"type", "encodedCredentials", "id"}
	oauthFields = []string{"id", "description", "url", "grantType", "clientAuthenticationMethod",
		"clientId", "clientSecret", "username", "password", "authorization", "additionalParams"}
	scriptserviceFields = []string{"api", "oAuth"}
)

func (p *parsed) add(pos Position, sev Severity, code, msg string) *Diagnostic {
	p.diags = append(p.diags, Diagnostic{Position: pos, Severity: sev, Code: code, Message: msg})
	return &p.diags[len(p.diags)-1]
}

// unknown reports a name that is not among known, suggesting the nearest.
// what is a format with one %q for the name, e.g. "key %q in an api entry".
func (p *parsed) unknown(pos Position, what, name string, known []string) {
	msg := "unknown " + fmt.Sprintf(what, name)
	if near := nearest(name, known, 1); len(near) > 0 {
		msg += fmt.Sprintf(": did you mean %q?", near[0])
	} else {
		msg += "; known: " + strings.Join(known, ", ")
	}
	p.add(pos, SeverityWarning, CodeUnknownName, msg+" (it is ignored)")
}

// Diagnostic codes; stable, documented in docs/diagnostics.md.
const (
	CodeFileNotFound      = "config-file-not-found"
	CodeFileUnreadable    = "config-file-unreadable"
	CodeNotRegularFile    = "config-file-not-regular"
	CodeFileTooLarge      = "config-file-too-large"
	CodeBadEncoding       = "config-bad-encoding"
	CodeNoConfiguration   = "config-none-found"
	CodeRootNotFound      = "config-root-not-found"
	CodeSyntax            = "config-syntax"
	CodeBadRoot           = "config-bad-root"
	CodeUnknownName       = "config-unknown-name"
	CodeMissingServiceID  = "service-missing-id"
	CodeBadServiceID      = "service-bad-id"
	CodeMissingURL        = "service-missing-url"
	CodeBadURL            = "service-bad-url"
	CodeInsecureURL       = "service-insecure-url"
	CodeDuplicateService  = "service-duplicate"
	CodeUnknownReference  = "service-unknown-reference"
	CodeReferenceChain    = "service-reference-chain"
	CodeBrokenReference   = "service-reference-unusable"
	CodeReferenceNoAuth   = "service-reference-no-auth"
	CodeAuthMissingType   = "auth-missing-type"
	CodeAuthUnknownType   = "auth-unknown-type"
	CodeAuthMissingCreds  = "auth-basic-missing-credentials"
	CodeAuthBadCreds      = "auth-basic-bad-credentials"
	CodeAuthMissingOAuth  = "auth-oauth-missing-id"
	CodeAuthUnknownOAuth  = "auth-oauth-unknown-id"
	CodeAuthBrokenOAuth   = "auth-oauth-unusable"
	CodeOAuthMissingField = "oauth-missing-field"
	CodeOAuthBadValue     = "oauth-bad-value"
	CodeOAuthDuplicate    = "oauth-duplicate"
	CodeBadOAuthID        = "oauth-bad-id"
	CodeOAuthUnusedField  = "oauth-unused-field"
	CodeTimeoutBad        = "timeout-bad-value"
)
