package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/restls/restls/workspace"
)

// AuthMode is how serve --http tells who a request comes from
// (docs/http.md, "Identity and roles").
type AuthMode string

// The modes of --auth.
const (
	// AuthKey: one access key (--token, or the secret made at start) for
	// one user; whoever holds it may run, as before roles existed.
	AuthKey AuthMode = "key"
	// AuthOIDC: an OpenID Connect token from the platform's identity
	// provider, verified against its keys, issuer, audience and expiry.
	AuthOIDC AuthMode = "oidc"
	// AuthProxy: the user named by a header an authenticating proxy sets,
	// trusted only from the proxy's addresses.
	AuthProxy AuthMode = "proxy"
)

// AuthModes are the values --auth takes.
var AuthModes = []AuthMode{AuthKey, AuthOIDC, AuthProxy}

// Defaults of AuthOptions.
const (
	DefaultUserHeader   = "X-Forwarded-User"
	DefaultGroupsHeader = "X-Forwarded-Groups"
	DefaultRoleClaim    = "groups"
	// DefaultSkew is how far a token's expiry may be past: clocks of two
	// machines differ by seconds, not minutes.
	DefaultSkew = 30 * time.Second
	// oidcTimeout bounds every request to the identity provider
	// (discovery at start, its keys when a token names an unknown one).
	oidcTimeout = 10 * time.Second
	// keysInterval is the least time between two fetches of the
	// provider's keys: a stream of tokens with made-up key ids cannot make
	// this server hammer the provider.
	keysInterval = 10 * time.Second
)

// BearerProtocol prefixes the WebSocket subprotocol that carries an
// OpenID Connect token on /lsp ("restls.bearer.<token>"): a browser cannot
// set a header on a WebSocket handshake, and a URL is logged by proxies.
// The client offers LSPProtocol too, which the server selects, so the
// token is never echoed.
const (
	BearerProtocol = "restls.bearer."
	LSPProtocol    = "restls.lsp"
)

// AuthOptions configure who a request comes from and what they may do.
// The zero value is AuthKey.
type AuthOptions struct {
	Mode AuthMode
	// Issuer and Audience (AuthOIDC): a token must be signed by a key of
	// the issuer's JWKS (found by OpenID Connect discovery), name this
	// issuer and have Audience among its audiences. Skew is how far past
	// its expiry it is still taken; zero means DefaultSkew.
	Issuer, Audience string
	Skew             time.Duration
	// HTTPClient reaches the identity provider; nil means one whose
	// requests time out after 10s.
	HTTPClient *http.Client
	// UserHeader and GroupsHeader (AuthProxy) name the user and their
	// groups (comma-separated); TrustedProxies are the addresses or CIDR
	// ranges the proxy connects from: a request from anywhere else is
	// refused, whatever headers it carries.
	UserHeader, GroupsHeader string
	TrustedProxies           []string
	// RoleClaim (AuthOIDC) is the claim whose values (a string or a list)
	// are the user's groups; zero means "groups".
	RoleClaim string
	// Roles map groups to roles (restls.yaml's roles key); nil gives
	// every signed-in user the role viewer.
	Roles *workspace.Roles
}

// Role is what a user may do, weakest first.
type Role int

// The roles (workspace.RoleNames).
const (
	RoleNone Role = iota
	RoleViewer
	RoleMocker
	RoleRunner
)

func (r Role) String() string {
	if r < 0 || int(r) >= len(workspace.RoleNames) {
		return workspace.RoleNone
	}
	return workspace.RoleNames[r]
}

func roleOf(name string) Role {
	if i := slices.Index(workspace.RoleNames, name); i >= 0 {
		return Role(i)
	}
	return RoleNone
}

// Identity is who a request comes from and what they may do.
type Identity struct {
	// User names them: the token's preferred_username, email or subject,
	// or the proxy's user header; "key" or "anonymous" with AuthKey.
	User string
	Role Role
	// Environments and Services limit a runner's live runs; empty: all.
	Environments, Services []string
	// Auth is the mode that identified them.
	Auth AuthMode
	// Remote is the address the request came from; ForwardedFor, with
	// AuthProxy, the client the trusted proxy says it forwards
	// (X-Forwarded-For).
	Remote, ForwardedFor string
	// Expires is when the OIDC token that identified them stops being
	// taken (its expiry plus the skew); zero when nothing expires. An
	// /lsp session keeps the identity of its handshake, so the gate
	// checks it at each run.
	Expires time.Time
	// key: the request presented the access key (AuthKey).
	key bool
}

// expired refuses what id asks for at now when the token it signed in
// with has expired (an /lsp session keeps its handshake's identity);
// done says what did not happen. Nil while it is good.
func (id Identity) expired(now time.Time, done string) *RefusedError {
	if id.Expires.IsZero() || now.Before(id.Expires) {
		return nil
	}
	return &RefusedError{Code: refusedExpired, Reason: fmt.Sprintf("%s's sign-in on this connection expired at %s (the OpenID Connect token it was opened with): %s; "+
		"open the connection again with a new token (@restls/designer-editor asks its bearer function for one at each connection)", id.User, id.Expires.UTC().Format(time.RFC3339), done)}
}

type identityKey struct{}

func withIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom is the identity of the request or /lsp session ctx belongs
// to; false for a run that came from elsewhere (the editor on stdio).
func IdentityFrom(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(Identity)
	return id, ok
}

// authenticator identifies requests in one mode.
type authenticator struct {
	opts     AuthOptions
	verifier *oidc.IDTokenVerifier
	proxies  []netip.Prefix
}

// newAuthenticator checks o and, for AuthOIDC, discovers the provider
// (bounded by the client's timeout); it fails when the provider does not
// answer, so a typo in --oidc-issuer stops the server at start.
func newAuthenticator(o AuthOptions) (*authenticator, error) {
	if o.Mode == "" {
		o.Mode = AuthKey
	}
	if o.UserHeader == "" {
		o.UserHeader = DefaultUserHeader
	}
	if o.GroupsHeader == "" {
		o.GroupsHeader = DefaultGroupsHeader
	}
	if o.RoleClaim == "" {
		o.RoleClaim = DefaultRoleClaim
	}
	if o.Skew <= 0 {
		o.Skew = DefaultSkew
	}
	a := &authenticator{opts: o}
	switch o.Mode {
	case AuthKey:
	case AuthOIDC:
		if o.Issuer == "" || o.Audience == "" {
			return nil, errors.New("--auth oidc needs --oidc-issuer (the identity provider's issuer URL) and --oidc-audience (the client ID its tokens are issued for)")
		}
		client := o.HTTPClient
		if client == nil {
			client = &http.Client{Timeout: oidcTimeout}
		}
		client = &http.Client{Timeout: client.Timeout, Transport: &keysLimit{next: transportOf(client), min: keysInterval}, CheckRedirect: client.CheckRedirect}
		// The provider keeps this context to fetch its keys later: it must
		// live as long as the server, so it has no deadline (the client's
		// timeout bounds each request).
		ctx := oidc.ClientContext(context.Background(), client)
		p, err := oidc.NewProvider(ctx, o.Issuer)
		if err != nil {
			return nil, fmt.Errorf("--oidc-issuer %s: OpenID Connect discovery failed: %w; check the URL (its /.well-known/openid-configuration must answer)", o.Issuer, err)
		}
		skew := o.Skew
		a.verifier = p.Verifier(&oidc.Config{ClientID: o.Audience, Now: func() time.Time { return time.Now().Add(-skew) }})
	case AuthProxy:
		if len(o.TrustedProxies) == 0 {
			return nil, errors.New("--auth proxy needs --trusted-proxy CIDR (the addresses the authenticating proxy connects from): without it any client could claim to be anyone")
		}
		for _, p := range o.TrustedProxies {
			pfx, err := parsePrefix(p)
			if err != nil {
				return nil, fmt.Errorf("--trusted-proxy %q: give an address or a CIDR range, e.g. 10.0.0.0/8: %v", p, err)
			}
			a.proxies = append(a.proxies, pfx)
		}
	default:
		return nil, fmt.Errorf("--auth %q: give one of key, oidc, proxy", o.Mode)
	}
	return a, nil
}

func parsePrefix(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		return p.Masked(), err
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
}

func transportOf(c *http.Client) http.RoundTripper {
	if c.Transport != nil {
		return c.Transport
	}
	return http.DefaultTransport
}

// refusal is why a request was not identified: its status and the
// sentence the client reads.
type refusal struct {
	status int
	msg    string
}

// identify tells who r comes from. key reports whether it presented the
// access key (AuthKey's only question).
func (a *authenticator) identify(r *http.Request, key bool) (Identity, *refusal) {
	id := Identity{Auth: a.opts.Mode, Remote: r.RemoteAddr}
	switch a.opts.Mode {
	case AuthOIDC:
		raw := bearerOf(r)
		if raw == "" {
			return id, &refusal{http.StatusUnauthorized, "sign in: send the platform's OpenID Connect token as \"Authorization: Bearer <token>\" " +
				"(on /lsp, as the WebSocket subprotocol " + BearerProtocol + "<token>, offered with " + LSPProtocol + ")"}
		}
		tok, err := a.verifier.Verify(r.Context(), raw)
		if err != nil {
			return id, &refusal{http.StatusUnauthorized, tokenRefused(err)}
		}
		var claims map[string]any
		if err := tok.Claims(&claims); err != nil {
			return id, &refusal{http.StatusUnauthorized, "the token's claims are not a JSON object"}
		}
		id.User = firstString(claims, "preferred_username", "email", "sub")
		if !tok.Expiry.IsZero() {
			id.Expires = tok.Expiry.Add(a.opts.Skew)
		}
		a.grant(&id, claimValues(claims[a.opts.RoleClaim]))
	case AuthProxy:
		if !a.fromProxy(r.RemoteAddr) {
			return id, &refusal{http.StatusForbidden, "restls serve --http --auth proxy answers only its authenticating proxy (--trusted-proxy); " +
				"this request came from another address: reach the designer through the proxy"}
		}
		id.ForwardedFor = strings.TrimSpace(r.Header.Get("X-Forwarded-For"))
		if len(id.ForwardedFor) > 200 {
			id.ForwardedFor = id.ForwardedFor[:200]
		}
		id.User = strings.TrimSpace(r.Header.Get(a.opts.UserHeader))
		if id.User == "" {
			return id, &refusal{http.StatusUnauthorized, "the proxy sent no " + a.opts.UserHeader + " header: configure it to authenticate every request and pass the user"}
		}
		var groups []string
		for _, g := range strings.Split(r.Header.Get(a.opts.GroupsHeader), ",") {
			if g = strings.TrimSpace(g); g != "" {
				groups = append(groups, g)
			}
		}
		a.grant(&id, groups)
	default:
		id.key = key
		if key {
			id.User, id.Role = "key", RoleRunner
		} else {
			id.User, id.Role = "anonymous", RoleViewer
		}
		return id, nil
	}
	if id.Role == RoleNone {
		return id, &refusal{http.StatusForbidden, fmt.Sprintf("%s has no role on this server: none of their groups is listed under roles.groups in restls.yaml, and roles.default is none; ask its operator for a role", id.User)}
	}
	return id, nil
}

// tokenRefused says why a token was not taken, never the token.
func tokenRefused(err error) string {
	var exp *oidc.TokenExpiredError
	if errors.As(err, &exp) {
		return "the token has expired: sign in again (or let the page refresh it) and retry"
	}
	return "the token was refused (" + strings.TrimPrefix(err.Error(), "oidc: ") + "): send a token the platform's identity provider issued for this server's audience"
}

// bearerOf is the token of an Authorization: Bearer header or, on a
// WebSocket handshake, of a restls.bearer.<token> subprotocol. Never a
// query parameter: addresses end up in logs.
func bearerOf(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, ok := strings.Cut(h, " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(tok)
		}
		return ""
	}
	for _, line := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(line, ",") {
			if tok, ok := strings.CutPrefix(strings.TrimSpace(p), BearerProtocol); ok {
				return tok
			}
		}
	}
	return ""
}

func (a *authenticator) fromProxy(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	addr = addr.Unmap()
	for _, p := range a.proxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// grant gives id the strongest role among its groups' grants, or the
// default; runners' limits are the union of their runner grants' (one
// without limits lifts them).
func (a *authenticator) grant(id *Identity, groups []string) {
	roles := a.opts.Roles
	if roles == nil {
		id.Role = RoleViewer
		return
	}
	id.Role = roleOf(roles.Default)
	var matched []workspace.Grant
	best := RoleNone
	sort.Strings(groups)
	for _, g := range slices.Compact(groups) {
		gr, ok := roles.Groups[g]
		if !ok {
			continue
		}
		matched = append(matched, gr)
		best = max(best, roleOf(gr.Role))
	}
	if len(matched) == 0 {
		return
	}
	id.Role = best
	if best != RoleRunner {
		return
	}
	envs, svcs := []string{}, []string{}
	for _, gr := range matched {
		if roleOf(gr.Role) != RoleRunner {
			continue
		}
		if envs != nil {
			if len(gr.Environments) == 0 {
				envs = nil
			} else {
				envs = append(envs, gr.Environments...)
			}
		}
		if svcs != nil {
			if len(gr.Services) == 0 {
				svcs = nil
			} else {
				svcs = append(svcs, gr.Services...)
			}
		}
	}
	id.Environments, id.Services = compact(envs), compact(svcs)
}

func compact(s []string) []string {
	if s == nil {
		return nil
	}
	sort.Strings(s)
	return slices.Compact(s)
}

func firstString(claims map[string]any, names ...string) string {
	for _, n := range names {
		if s, ok := claims[n].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// claimValues are a claim's values: a string, or the strings of a list.
func claimValues(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// keysLimit lets the provider's keys be fetched at most once per min:
// go-oidc fetches them again for every token naming a key it has not
// seen, which a client could otherwise make happen on every request.
// Discovery (its own path) is not limited.
type keysLimit struct {
	next http.RoundTripper
	min  time.Duration
	mu   sync.Mutex
	last time.Time
}

func (k *keysLimit) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/.well-known/openid-configuration") {
		return k.next.RoundTrip(r)
	}
	k.mu.Lock()
	now := time.Now()
	if !k.last.IsZero() && now.Sub(k.last) < k.min {
		k.mu.Unlock()
		return nil, fmt.Errorf("the identity provider's keys were fetched less than %v ago; a token naming an unknown key is refused until then", k.min)
	}
	k.last = now
	k.mu.Unlock()
	return k.next.RoundTrip(r)
}
