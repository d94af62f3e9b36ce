package web

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"go.uber.org/zap"
)

// identify tells who r comes from, or answers it with why not. With the
// access key: with --token every request presents it; without one,
// reading is open (on loopback: a token is required elsewhere) and the
// secret made at start guards the rest. With --auth oidc or proxy, every
// request names its user, whose role says what they may do.
func (s *Server) identify(w http.ResponseWriter, r *http.Request) (Identity, bool) {
	key := s.auth.opts.Mode == AuthKey && s.hasKey(r)
	if s.auth.opts.Mode == AuthKey && s.opts.Token != "" && !key {
		w.Header().Set("WWW-Authenticate", `Bearer realm="restls"`)
		writeError(w, http.StatusUnauthorized, "missing or wrong bearer token: send \"Authorization: Bearer <token>\" with the token restls serve --http was started with")
		return Identity{}, false
	}
	id, ref := s.auth.identify(r, key)
	if ref != nil {
		if ref.status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="restls"`)
		}
		s.log.Info("request refused", zap.String("auth", string(s.auth.opts.Mode)), zap.String("remote", r.RemoteAddr), zap.Int("status", ref.status))
		writeError(w, ref.status, ref.msg)
		return Identity{}, false
	}
	return id, true
}

// hasKey checks the key: the --token, or the secret made at start. The
// header is preferred; the access_token query parameter (RFC 6750 section
// 2.3) exists because a browser cannot put a header on a page load or a
// WebSocket handshake. Query strings are never logged.
func (s *Server) hasKey(r *http.Request) bool {
	got := ""
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, ok := strings.Cut(h, " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			got = strings.TrimSpace(tok)
		}
	} else {
		got = r.URL.Query().Get("access_token")
	}
	// Compare digests so the comparison takes the same time whatever the
	// lengths.
	a := sha256.Sum256([]byte(got))
	b := sha256.Sum256([]byte(s.key))
	return got != "" && s.key != "" && subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// parseOrigins validates --allow-origin values: scheme://host[:port], no
// path, no wildcard.
func parseOrigins(list []string) (map[string]bool, error) {
	m := make(map[string]bool, len(list))
	for _, o := range list {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || strings.Contains(o, "*") {
			return nil, fmt.Errorf("--allow-origin %q: give an origin as scheme://host[:port], e.g. http://localhost:3000 (no path, no wildcard)", o)
		}
		m[strings.ToLower(u.Scheme+"://"+u.Host)] = true
	}
	return m, nil
}

// corsHeaders adds CORS headers for an allowed Origin and answers a
// preflight; it reports whether the request was fully answered. Requests
// from other origins get no CORS headers, so browsers refuse them.
func (s *Server) corsHeaders(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	h := w.Header()
	h.Add("Vary", "Origin")
	allowed := origin != "" && s.cors[strings.ToLower(origin)]
	if allowed {
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Expose-Headers", "ETag")
	}
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	// A preflight carries no credentials; answer it before authentication.
	if allowed {
		h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, If-None-Match")
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
	} else {
		w.WriteHeader(http.StatusForbidden)
	}
	return true
}
