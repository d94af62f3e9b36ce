package web

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.uber.org/zap"
)

// The checks every request passes before it reaches an endpoint, in this
// order (docs/http.md, "Security model"):
//
//  1. Host: only the names this server answers to (DNS rebinding: a page
//     whose name the attacker re-points at 127.0.0.1 still sends its own
//     name as Host);
//  2. Origin: a browser request from any page but this server's own (or an
//     --allow-origin) is refused, whatever it asks for;
//  3. the key: with --token, on every request; without one, a secret
//     made at start guards what runs or changes something.

// newSecret makes the per-process key used when no --token is given.
func newSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // never fails (crypto/rand documents it)
	return base64.RawURLEncoding.EncodeToString(b)
}

// parseHosts validates --allow-host values: a host name or address, with
// or without a port.
func parseHosts(list []string) (map[string]bool, error) {
	m := make(map[string]bool, len(list))
	for _, h := range list {
		host, port := splitHost(h)
		if host == "" || strings.ContainsAny(h, "/*@?# ") || (port != "" && !isPort(port)) {
			return nil, fmt.Errorf("--allow-host %q: give a host name or address, optionally with a port, e.g. designer.internal or designer.internal:7373", h)
		}
		m[joinHost(host, port)] = true
	}
	return m, nil
}

// splitHost splits host[:port] (IPv6 in brackets) and lower-cases the host;
// it never fails: a value without a port is all host.
func splitHost(hp string) (host, port string) {
	hp = strings.ToLower(strings.TrimSpace(hp))
	if h, p, err := net.SplitHostPort(hp); err == nil {
		return strings.TrimSuffix(h, "."), p
	}
	return strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(hp, "["), "]"), "."), ""
}

func joinHost(host, port string) string {
	if port == "" {
		if strings.Contains(host, ":") {
			return "[" + host + "]"
		}
		return host
	}
	return net.JoinHostPort(host, port)
}

func isPort(p string) bool {
	if p == "" || len(p) > 5 {
		return false
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// localAddr is the address the request's connection arrived on.
func localAddr(r *http.Request) (ip net.IP, port string) {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return nil, ""
	}
	h, p, err := net.SplitHostPort(a.String())
	if err != nil {
		return nil, ""
	}
	return net.ParseIP(h), p
}

// hostAllowed reports whether hostport names this server, for a request
// that arrived on r's connection: the loopback names and addresses when it
// arrived on loopback, the address it arrived on, and --allow-host values.
// A port, when given, must be the one the request arrived on (an
// --allow-host value with a port matches exactly); a browser leaves the
// port out only when it is the scheme's default.
func (s *Server) hostAllowed(r *http.Request, hostport string) bool {
	host, port := splitHost(hostport)
	if host == "" {
		return false
	}
	if s.hosts[joinHost(host, port)] || s.hosts[host] {
		return true
	}
	ip, lport := localAddr(r)
	if ip == nil || (port != "" && port != lport) {
		return false
	}
	if ip.IsLoopback() && (host == "localhost" || host == "127.0.0.1" || host == "::1") {
		return true
	}
	got := net.ParseIP(host)
	return got != nil && got.Equal(ip)
}

// originAllowed reports whether a request's Origin may reach this server:
// none (not a browser, or a same-origin navigation), an --allow-origin
// value, or this server's own origin under any name it answers to.
func (s *Server) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if s.cors[strings.ToLower(origin)] {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return false // "null" (a sandboxed or file: page) included
	}
	hp := u.Host
	if u.Port() == "" {
		hp = joinHost(u.Hostname(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
	}
	return s.hostAllowed(r, hp)
}

// wsOriginPatterns are the patterns websocket.Accept checks the Origin
// against: the one this server has just allowed, escaped for path.Match
// (an IPv6 origin has brackets).
func wsOriginPatterns(r *http.Request) []string {
	o := strings.ToLower(r.Header.Get("Origin"))
	if o == "" {
		return nil
	}
	return []string{strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, "*", `\*`, "?", `\?`).Replace(o)}
}

// isJSON reports whether a request body is declared as JSON: a browser
// can send text/plain, form and multipart bodies from any page without
// asking first (no CORS preflight), but not application/json.
func isJSON(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

// hostRefused and the other refusals say what to do.
func (s *Server) hostRefused(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if len(host) > 100 {
		host = host[:100] + "..."
	}
	writeError(w, http.StatusMisdirectedRequest, fmt.Sprintf("restls serve --http does not answer to the host name %q: it answers to the loopback names and address it listens on, "+
		"and to names given with --allow-host; if you reach it through this name (a proxy or a DNS name), start it with --allow-host %s", host, quoteArg(host)))
}

func quoteArg(s string) string {
	if strings.ContainsAny(s, " \"'$`\\") || s == "" {
		return "'" + strings.ReplaceAll(s, "'", "") + "'"
	}
	return s
}

func originRefused(w http.ResponseWriter) {
	writeError(w, http.StatusForbidden, "requests from another web page's origin are refused: only this server's own page may call it; "+
		"to let a designer served elsewhere call it, start restls serve --http with --allow-origin scheme://host[:port]")
}

// mayRun guards POST /v1/run: it needs the key (without --token, the
// secret in the page's address) and a body declared application/json;
// with roles, the gate decides once the body says the run's mode, and
// audits a refusal like any run. With dry runs off, handleRun says so
// whoever asks.
func (s *Server) mayRun(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.runsOn() {
			next.ServeHTTP(w, r)
			return
		}
		id, _ := IdentityFrom(r.Context())
		if id.Auth == AuthKey && !id.key {
			w.Header().Set("WWW-Authenticate", `Bearer realm="restls"`)
			writeError(w, http.StatusUnauthorized, keyMissing)
			return
		}
		if !isJSON(r) {
			writeError(w, http.StatusUnsupportedMediaType, "send the body as Content-Type: application/json; "+
				"other types are refused because any web page can send them to this server without asking")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// keyMissing says how to get the key; it never contains it.
const keyMissing = "this needs the access key: open the designer with the address restls serve --http printed when it started " +
	"(it ends in ?access_token=...), or send \"Authorization: Bearer <key>\" (the --token, when one was given)"

// boundBody gives a request's body ReadTimeout to arrive (the header had
// ReadHeaderTimeout), so a body sent a byte at a time cannot hold the
// connection. Only requests with a body: net/http clears the deadline
// itself once the body has been read (its watch for a client that goes
// away starts then), whereas on a request without one that watch is
// already waiting, and a deadline would end it and cancel the request.
func (s *Server) boundBody(w http.ResponseWriter) {
	if err := http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.opts.ReadTimeout)); err != nil {
		s.log.Warn("cannot bound the request read time", zap.Error(err))
	}
}
