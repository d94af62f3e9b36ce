package mcp

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/restclient"
)

// No credential of the configuration leaves the server: every result
// and error passes redactor, which hides each secret the configuration
// holds (basic credentials and what they decode to, OAuth client
// secrets, passwords and token credentials) in every form it may take
// in JSON text: raw, JSON-escaped, URL-escaped, base64 (restclient's
// Redactor). The tools never put one in an answer on purpose; this is
// the last step, so that a new tool, a message quoting a file or a
// description echoing a header cannot either.

// redactor hides the credentials of one configuration, then applies
// also (nil: nothing more).
type redactor struct {
	r    *restclient.Redactor
	also func(string) string
}

// redactors keeps the redactor of the configurations last seen: a
// reload makes a new one.
type redactors struct {
	mu    sync.Mutex
	snaps []*config.Snapshot
	r     redactor
}

// of is the redactor of the configurations snaps.
func (rs *redactors) of(snaps []*config.Snapshot) redactor {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if !slices.Equal(snaps, rs.snaps) || rs.r.r == nil {
		rs.snaps, rs.r = snaps, newRedactor(snaps)
	}
	return rs.r
}

// newRedactor registers every credential of the registries of snaps.
func newRedactor(snaps []*config.Snapshot) redactor {
	var c creds
	for _, snap := range snaps {
		if snap == nil {
			continue
		}
		for _, k := range config.Kinds {
			reg := snap.For(k)
			if reg == nil {
				continue
			}
			for _, id := range reg.IDs() {
				svc, _ := reg.Service(id)
				c.service(reg, svc)
			}
		}
	}
	return c.redactor()
}

// creds are the credentials of a configuration: secrets as they are,
// basic ones as base64 of login:password.
type creds struct{ secrets, basic []string }

func (c *creds) service(reg *config.Registry, svc *config.Service) {
	switch svc.Auth.Type {
	case config.AuthBasic:
		c.basic = append(c.basic, svc.Auth.EncodedCredentials.Reveal())
	case config.AuthOAuth:
		o, ok := reg.OAuth(svc.Auth.OAuthID)
		if !ok {
			return
		}
		c.secrets = append(c.secrets, o.ClientSecret.Reveal(), o.Password.Reveal())
		c.basic = append(c.basic, o.TokenBasicAuth.Reveal())
		if o.ClientID != "" && !o.ClientSecret.IsZero() {
			// client_secret_basic sends base64 of id:secret.
			c.basic = append(c.basic, base64.StdEncoding.EncodeToString([]byte(o.ClientID+":"+o.ClientSecret.Reveal())))
		}
		for _, p := range o.AdditionalParams {
			c.secrets = append(c.secrets, p.Value.Reveal())
		}
	}
}

// redactor hides each credential in the forms restclient's Redactor
// knows (raw, JSON- and URL-escaped, a basic one decoded), and base64
// of each secret too.
func (c creds) redactor() redactor {
	red := restclient.NewRedactor()
	for _, s := range c.secrets {
		addBase64(red, s)
	}
	for _, b := range c.basic {
		red.AddBasic(b)
		if dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b)); err == nil {
			if _, pw, ok := strings.Cut(string(dec), ":"); ok {
				addBase64(red, pw)
			}
		}
	}
	return redactor{r: red}
}

// addBase64 registers s and its base64 encodings.
func addBase64(red *restclient.Redactor, s string) {
	if len(s) < restclient.MinSecretLen {
		return
	}
	red.Add(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		red.Add(enc.EncodeToString([]byte(s)))
	}
}

// errWithheld replaces an answer that could not be checked for
// credentials.
var errWithheld = errors.New("restls withheld this answer: it could not be checked for credentials; report it as a restls bug")

// text hides the credentials in s.
func (r redactor) text(s string) string {
	s = r.r.String(s)
	if r.also != nil {
		s = r.also(s)
	}
	return s
}

// result returns res with every credential hidden: res itself when it
// holds none, else a copy decoded from its redacted JSON.
func (r redactor) result(res sdk.Result) (sdk.Result, error) {
	if res == nil || reflect.ValueOf(res).IsNil() {
		return res, nil
	}
	data, err := json.Marshal(res)
	if err != nil {
		return nil, errWithheld
	}
	red := r.text(string(data))
	if red == string(data) {
		return res, nil
	}
	out := reflect.New(reflect.TypeOf(res).Elem())
	if err := json.Unmarshal([]byte(red), out.Interface()); err != nil {
		return nil, errWithheld
	}
	return out.Interface().(sdk.Result), nil
}

// err returns err with every credential hidden from its message.
func (r redactor) err(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := r.text(msg); red != msg {
		return errors.New(red)
	}
	return err
}
