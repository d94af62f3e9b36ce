package mcp

import (
	"encoding/json"
	"errors"
	"reflect"
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

// redactor hides the credentials of one configuration.
type redactor struct{ r *restclient.Redactor }

// redactors keeps the redactor of the configuration last seen: a
// reload makes a new one.
type redactors struct {
	mu   sync.Mutex
	snap *config.Snapshot
	r    redactor
}

// of is the redactor of p's configuration as it is now.
func (rs *redactors) of(p Project) redactor {
	snap := p.Config()
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if snap != rs.snap || rs.r.r == nil {
		rs.snap, rs.r = snap, newRedactor(snap)
	}
	return rs.r
}

// newRedactor registers every credential of snap's registries.
func newRedactor(snap *config.Snapshot) redactor {
	red := restclient.NewRedactor()
	if snap == nil {
		return redactor{red}
	}
	for _, k := range config.Kinds {
		reg := snap.For(k)
		if reg == nil {
			continue
		}
		for _, id := range reg.IDs() {
			svc, _ := reg.Service(id)
			addService(red, reg, svc)
		}
	}
	return redactor{red}
}

func addService(red *restclient.Redactor, reg *config.Registry, svc *config.Service) {
	switch svc.Auth.Type {
	case config.AuthBasic:
		red.AddBasic(svc.Auth.EncodedCredentials.Reveal())
	case config.AuthOAuth:
		o, ok := reg.OAuth(svc.Auth.OAuthID)
		if !ok {
			return
		}
		red.Add(o.ClientSecret.Reveal())
		red.Add(o.Password.Reveal())
		red.AddBasic(o.TokenBasicAuth.Reveal())
		for _, p := range o.AdditionalParams {
			red.Add(p.Value.Reveal())
		}
	}
}

// errWithheld replaces an answer that could not be checked for
// credentials.
var errWithheld = errors.New("restls withheld this answer: it could not be checked for credentials; report it as a restls bug")

// text hides the credentials in s.
func (r redactor) text(s string) string { return r.r.String(s) }

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
