// Package oauthtest starts a real OAuth2 authorization server (go-oauth2)
// on loopback for the tests of runtime/restclient, runtime and cmd/restls:
// one client, the client_credentials and password grants, hour-long access
// tokens. It remembers what it was asked and what it issued, so tests can
// count token requests, check the form and headers of the last one, and
// look for issued tokens in what restls writes. Only _test.go files import
// it.
//
// It imports no restls package, so any package's tests may use it.
package oauthtest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/go-oauth2/oauth2/v4"
	oerrors "github.com/go-oauth2/oauth2/v4/errors"
	"github.com/go-oauth2/oauth2/v4/manage"
	"github.com/go-oauth2/oauth2/v4/models"
	"github.com/go-oauth2/oauth2/v4/server"
	"github.com/go-oauth2/oauth2/v4/store"
)

// UserID is the user the password grant authenticates, whichever of
// Options.Users signs in.
const UserID = "user-1"

// Options configure a Server.
type Options struct {
	// ClientID and Secret are the one client the server knows.
	ClientID, Secret string
	// BasicAuth makes the server read the client's credentials from an
	// HTTP Basic Authorization header (client_secret_basic) instead of the
	// form (client_secret_post).
	BasicAuth bool
	// Users are the password grant's users: username to password.
	Users map[string]string
	// Gateway, when set, is the basic credentials (base64) a gateway in
	// front of the token endpoint requires in the Authorization header:
	// any other request gets 403, and the gateway removes the header before
	// the server sees the request (the nested authorization of docs/api.md#oauth).
	Gateway string
	// FailStatus, when set, answers every token request with this status
	// and FailBody as application/json, issuing nothing.
	FailStatus int
	FailBody   string
}

// TokenRequest is what the server remembers of a token request: the form
// and the Authorization header as they arrived, before any gateway.
type TokenRequest struct {
	Form          url.Values
	Authorization string
}

// Server is a token endpoint on loopback: its URL takes token requests
// at any path. New closes it when the test ends; Close stops it earlier
// (an unreachable endpoint).
type Server struct {
	*httptest.Server
	opts    Options
	manager *manage.Manager
	srv     *server.Server

	mu       sync.Mutex
	requests []TokenRequest
	issued   []string
}

// New starts a Server and closes it with t.Cleanup.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	s := &Server{opts: opts, manager: manage.NewDefaultManager()}
	s.manager.SetClientTokenCfg(&manage.Config{AccessTokenExp: time.Hour})
	s.manager.SetPasswordTokenCfg(&manage.Config{AccessTokenExp: time.Hour, IsGenerateRefresh: true, RefreshTokenExp: 2 * time.Hour})
	s.manager.MustTokenStorage(store.NewMemoryTokenStore())
	clients := store.NewClientStore()
	if err := clients.Set(opts.ClientID, &models.Client{ID: opts.ClientID, Secret: opts.Secret}); err != nil {
		t.Fatal(err)
	}
	s.manager.MapClientStorage(clients)
	s.srv = server.NewDefaultServer(s.manager)
	s.srv.SetAllowGetAccessRequest(false)
	if opts.BasicAuth {
		s.srv.SetClientInfoHandler(server.ClientBasicHandler)
	} else {
		s.srv.SetClientInfoHandler(server.ClientFormHandler)
	}
	s.srv.SetPasswordAuthorizationHandler(func(_ context.Context, _, username, password string) (string, error) {
		if want, ok := opts.Users[username]; ok && password == want {
			return UserID, nil
		}
		return "", oerrors.ErrInvalidGrant
	})
	s.Server = httptest.NewServer(http.HandlerFunc(s.handleToken))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	s.mu.Lock()
	s.requests = append(s.requests, TokenRequest{Form: r.PostForm, Authorization: r.Header.Get("Authorization")})
	s.mu.Unlock()
	if s.opts.FailStatus != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s.opts.FailStatus)
		_, _ = w.Write([]byte(s.opts.FailBody))
		return
	}
	if s.opts.Gateway != "" {
		if r.Header.Get("Authorization") != "Basic "+s.opts.Gateway {
			http.Error(w, "gateway: who are you", http.StatusForbidden)
			return
		}
		r.Header.Del("Authorization") // the gateway consumes it
	}
	rec := httptest.NewRecorder()
	if err := s.srv.HandleTokenRequest(rec, r); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	var tok struct {
		Access  string `json:"access_token"`
		Refresh string `json:"refresh_token"`
	}
	if json.Unmarshal(rec.Body.Bytes(), &tok) == nil {
		s.mu.Lock()
		for _, v := range []string{tok.Access, tok.Refresh} {
			if v != "" {
				s.issued = append(s.issued, v)
			}
		}
		s.mu.Unlock()
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// TokenRequests is how many token requests the server has had, whether it
// answered them with a token or not.
func (s *Server) TokenRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// LastRequest is the latest token request. It fails t if there was none.
func (s *Server) LastRequest(t testing.TB) TokenRequest {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		t.Fatal("oauthtest: no token request yet")
	}
	return s.requests[len(s.requests)-1]
}

// Issued returns every access and refresh token issued so far, in order.
// The client_credentials grant issues no refresh token, so there the last
// one is the latest access token.
func (s *Server) Issued() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.issued...)
}

// Validate checks the bearer token of a request to a resource server and
// returns what it was issued for (client and user).
func (s *Server) Validate(r *http.Request) (oauth2.TokenInfo, error) {
	return s.srv.ValidationBearerToken(r)
}

// Revoke removes an access token, so that Validate rejects it from now on.
func (s *Server) Revoke(ctx context.Context, access string) error {
	return s.manager.RemoveAccessToken(ctx, access)
}
