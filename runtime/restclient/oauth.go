package restclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/restls/restls/config"
)

// TokenEarlyExpiry is how long before its expiry a cached token is
// replaced; a token living less than five times that is replaced after
// four fifths of its life.
const TokenEarlyExpiry = 30 * time.Second

// tokenCache holds one token per OAuth definition. x/oauth2's token
// sources cannot drop a token the service rejected, so restls owns the
// cache; x/oauth2 only performs the token request.
type tokenCache struct {
	mu      sync.Mutex
	entries map[string]*tokenEntry
}

type tokenEntry struct {
	// sem admits one fetch at a time; whoever holds it may read and write
	// the fields below.
	sem     chan struct{}
	token   string
	refresh string
	renewAt time.Time // zero: valid until the service rejects it
}

// key identifies a definition by its content, so a reloaded configuration
// with other credentials never reuses an old token.
func tokenKey(o *config.OAuth) string {
	h := sha256.New()
	for _, s := range []string{o.ID, o.URL, o.GrantType, o.ClientAuthenticationMethod, o.ClientID,
		o.ClientSecret.Reveal(), o.Username, o.Password.Reveal(), o.TokenBasicAuth.Reveal()} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	for _, p := range o.AdditionalParams {
		h.Write([]byte(p.Name + "=" + p.Value.Reveal()))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (c *tokenCache) entry(o *config.OAuth) *tokenEntry {
	k := tokenKey(o)
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok {
		e = &tokenEntry{sem: make(chan struct{}, 1)}
		c.entries[k] = e
	}
	return e
}

// peek returns the cached token without waiting, or "".
func (c *tokenCache) peek(o *config.OAuth) string {
	e := c.entry(o)
	select {
	case e.sem <- struct{}{}:
		defer func() { <-e.sem }()
		return e.token
	default:
		return ""
	}
}

// invalidate drops token if it is still the cached one (another caller
// may already have replaced it).
func (c *tokenCache) invalidate(o *config.OAuth, token string) {
	e := c.entry(o)
	e.sem <- struct{}{}
	if e.token == token {
		e.token, e.refresh, e.renewAt = "", "", time.Time{}
	}
	<-e.sem
}

// token returns a valid access token for o, fetching one when the cache
// has none; concurrent callers wait for a single fetch.
func (s *Session) token(ctx context.Context, o *config.OAuth, serviceID string, lim limits, call *Call) (string, error) {
	if lim.mock {
		if m := s.c.opts.Mock; m != nil && m.takeTokenFault(mockCall{lim.serviceID, lim.method, lim.pathParams, lim.query}) {
			// A token-request-failed fixture: the token endpoint refuses
			// the client, and the script sees what it sees live.
			terr := s.tokenError(ctx, o, serviceID, lim, &oauth2.RetrieveError{
				Response: &http.Response{StatusCode: http.StatusUnauthorized, Status: "401 Unauthorized"}, ErrorCode: "invalid_client"})
			s.c.log.Warn("token request failed", zap.String("oAuthId", o.ID), zap.String("serviceId", serviceID), zap.String("error", s.red.String(terr.Error())))
			return "", terr
		}
		call.event(EventMock, fmt.Sprintf("no token is requested for oAuth %q in mock mode; a placeholder bearer token is sent", o.ID))
		return "restls-mock-token", nil
	}
	e := s.c.tokens.entry(o)
	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		return "", &Error{Code: CodeCanceled, ServiceID: serviceID, Message: fmt.Sprintf("the call to %s was canceled while waiting for the token of oAuth %q", serviceID, o.ID), Err: ctx.Err()}
	}
	defer func() { <-e.sem }()
	now := s.c.opts.Now()
	if e.token != "" && (e.renewAt.IsZero() || now.Before(e.renewAt)) {
		s.red.Add(e.token)
		call.event(EventToken, fmt.Sprintf("cached token of oAuth %q used", o.ID))
		return e.token, nil
	}
	start := time.Now()
	tok, err := s.fetchToken(withLimits(ctx, lim), s.c.base, o, call)
	if err != nil {
		// Only the sanitised error: x/oauth2's own text holds the raw body.
		terr := s.tokenError(ctx, o, serviceID, lim, err)
		s.c.log.Warn("token request failed", zap.String("oAuthId", o.ID), zap.String("serviceId", serviceID), zap.String("error", s.red.String(terr.Error())))
		return "", terr
	}
	s.red.Add(tok.AccessToken)
	s.red.Add(tok.RefreshToken)
	e.token, e.refresh, e.renewAt = tok.AccessToken, tok.RefreshToken, time.Time{}
	msg := fmt.Sprintf("token of oAuth %q fetched (%s grant, %s) in %d ms", o.ID, o.GrantType, o.ClientAuthenticationMethod, time.Since(start).Milliseconds())
	if !tok.Expiry.IsZero() {
		life := tok.Expiry.Sub(now)
		early := TokenEarlyExpiry
		if life < 5*early {
			early = life / 5
		}
		e.renewAt = tok.Expiry.Add(-early)
		msg += fmt.Sprintf(", expires in %d s", int(life.Round(time.Second).Seconds()))
	}
	call.event(EventToken, msg)
	s.c.log.Debug("token fetched", zap.String("oAuthId", o.ID), zap.Duration("duration", time.Since(start)))
	return e.token, nil
}

// fetchToken asks o's token endpoint for a token through base, which
// applies the read timeout (the connection timeout comes with ctx).
func (s *Session) fetchToken(ctx context.Context, base http.RoundTripper, o *config.OAuth, call *Call) (*oauth2.Token, error) {
	style := oauth2.AuthStyleInParams
	if o.ClientAuthenticationMethod == config.ClientSecretBasic {
		style = oauth2.AuthStyleInHeader
	}
	tt := &tokenTransport{base: base}
	if !o.TokenBasicAuth.IsZero() {
		tt.basic = o.TokenBasicAuth.Reveal()
		if style == oauth2.AuthStyleInHeader {
			// One Authorization header cannot carry both: the nested
			// authorization (a gateway's) takes it and the client
			// credentials move to the body.
			style = oauth2.AuthStyleInParams
			call.event(EventToken, fmt.Sprintf("oAuth %q has a nested basic authorization and client_secret_basic; the client credentials are sent in the body so the nested authorization can use the Authorization header", o.ID))
		}
	}
	params := url.Values{}
	for _, p := range o.AdditionalParams {
		params.Add(p.Name, p.Value.Reveal())
	}
	hc := &http.Client{
		Transport:     tt,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, hc)
	switch o.GrantType {
	case config.GrantPassword:
		// x/oauth2's password grant takes no extra parameters: the token
		// transport adds them to the form.
		tt.extra = params
		cfg := oauth2.Config{ClientID: o.ClientID, ClientSecret: o.ClientSecret.Reveal(),
			Endpoint: oauth2.Endpoint{TokenURL: o.URL, AuthStyle: style}}
		return cfg.PasswordCredentialsToken(ctx, o.Username, o.Password.Reveal())
	default:
		cfg := clientcredentials.Config{ClientID: o.ClientID, ClientSecret: o.ClientSecret.Reveal(),
			TokenURL: o.URL, EndpointParams: params, AuthStyle: style}
		return cfg.Token(ctx)
	}
}

// tokenError describes a failed token request without its response body,
// which may echo credentials.
func (s *Session) tokenError(ctx context.Context, o *config.OAuth, serviceID string, lim limits, err error) error {
	prefix := fmt.Sprintf("cannot get a token for %s from oAuth %q (%s)", serviceID, o.ID, o.URL)
	mk := func(msg string) error {
		return &Error{Code: CodeTokenFailed, ServiceID: serviceID, Message: prefix + ": " + msg, Err: errors.New(msg)}
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		msg := "the token endpoint answered"
		if re.Response != nil {
			msg += fmt.Sprintf(" %d %s", re.Response.StatusCode, http.StatusText(re.Response.StatusCode))
		}
		if c := safeCode(re.ErrorCode); c != "" {
			msg += fmt.Sprintf(" (error %q)", c)
		}
		return mk(msg + ": check url, grantType, clientAuthenticationMethod, clientId and the secrets of the oAuth definition")
	}
	var e *Error
	if errors.As(err, &e) {
		return mk(e.Message)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		code, what := transportFailure(ctx, lim, ue.Err)
		msg := fmt.Sprintf("the token endpoint (%s) %s: check the url of oAuth %q and that it is reachable from here", hostOf(o.URL), what, o.ID)
		if code == CodeCanceled {
			return &Error{Code: CodeCanceled, ServiceID: serviceID, Message: prefix + ": " + msg, Err: ue}
		}
		return &Error{Code: CodeTokenFailed, ServiceID: serviceID, Message: prefix + ": " + msg, Err: ue}
	}
	return mk("the token endpoint's answer is not a usable token response (it must be JSON with access_token)")
}

func hostOf(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Host
	}
	return ""
}

// safeCode keeps an RFC 6749 error code only when it looks like one.
func safeCode(c string) string {
	if len(c) > 64 {
		return ""
	}
	for i := 0; i < len(c); i++ {
		ch := c[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-' || ch == '.') {
			return ""
		}
	}
	return c
}

// tokenTransport adds the nested basic authorization and, for the
// password grant, the additional parameters to the token request.
type tokenTransport struct {
	base  http.RoundTripper
	basic string
	extra url.Values
}

func (t *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.basic == "" && len(t.extra) == 0 {
		return t.base.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	if t.basic != "" {
		r.Header.Set("Authorization", "Basic "+t.basic)
	}
	if len(t.extra) > 0 && req.Body != nil {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		form := string(b)
		if form != "" {
			form += "&"
		}
		form += t.extra.Encode()
		r.Body = io.NopCloser(strings.NewReader(form))
		r.ContentLength = int64(len(form))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader([]byte(form))), nil }
	}
	return t.base.RoundTrip(r)
}
