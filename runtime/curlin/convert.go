package curlin

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/restls/restls/config"
)

// Param is a name and a value: a query parameter or a header field.
type Param struct {
	Name, Value string
}

// Call is an api.rest.v1 call made from a curl command.
type Call struct {
	// Function is the api.rest.v1 function: get, delete, post, put, patch.
	Function  string
	ServiceID string
	// ServiceURL is the serviceId's resolved url the command's URL
	// extends.
	ServiceURL string
	PathParams []string
	Query      []Param
	Header     []Param
	// Payload is the JSON payload of post, put and patch ({} when the
	// command sends none); nil for get and delete.
	Payload json.RawMessage
	// Notes say what was left out or changed and why, one sentence each.
	Notes []string
}

// NoServiceError is the error of Convert when no configured serviceId's
// url is a prefix of the command's URL.
type NoServiceError struct {
	URL string
	// Suggest is a base url to configure: the URL without its query and
	// last path segment.
	Suggest string
	// SameHost lists "serviceId (url)" of the services on the URL's host,
	// whose path does not match.
	SameHost []string
	Kind     config.Kind
}

func (e *NoServiceError) Error() string {
	msg := fmt.Sprintf("no serviceId configured for %s has a url that %s starts with: configure one with url %s (or a shorter prefix of it) in the service configuration, then convert the command again",
		e.Kind, e.URL, e.Suggest)
	if len(e.SameHost) > 0 {
		msg += "; on the same host: " + strings.Join(e.SameHost, ", ")
	}
	return msg
}

// FromCurl parses text as a curl command line and converts it for reg.
func FromCurl(text string, reg *config.Registry) (*Call, error) {
	c, err := Parse(text)
	if err != nil {
		return nil, err
	}
	return Convert(c, reg)
}

// Convert makes the api.rest.v1 call that sends what c sends, to the
// serviceId of reg whose resolved url is the longest prefix of c's URL.
func Convert(c *Command, reg *config.Registry) (*Call, error) {
	call := &Call{}
	note := func(format string, args ...any) { call.Notes = append(call.Notes, fmt.Sprintf(format, args...)) }

	switch len(c.URLs) {
	case 0:
		return nil, errors.New("the curl command has no URL")
	case 1:
	default:
		return nil, fmt.Errorf("the curl command has %d URLs; an api.rest.v1 call sends one: paste one command per URL", len(c.URLs))
	}
	raw := c.URLs[0]
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw // what curl assumes
	}
	u, err := url.Parse(raw)
	if err != nil {
		// Not the URL itself: it may hold credentials.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("the URL cannot be read: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("the URL %s is not an http or https address", displayURL(u))
	}

	// The method, as curl picks it.
	method := strings.ToUpper(c.Method)
	hasBody := len(c.Data) > 0 || len(c.Form) > 0
	switch {
	case method != "":
	case c.Head:
		method = "HEAD"
	case c.Get:
		method = "GET"
	case hasBody:
		method = "POST"
	default:
		method = "GET"
	}
	switch method {
	case "GET", "DELETE", "POST", "PUT", "PATCH":
		call.Function = strings.ToLower(method)
	default:
		return nil, fmt.Errorf("the command sends %s; api.rest.v1 has get, delete, post, put and patch only", method)
	}

	body, bodyType, err := joinData(c.Data)
	if err != nil {
		return nil, err
	}
	var query []Param
	for _, q := range c.URLQuery {
		query = append(query, urlencodedPairs(encodeData(q))...)
	}
	if c.Get && body != "" {
		// -G: the data goes to the query, as curl does.
		query = append(query, urlencodedPairs(body)...)
		body, bodyType = "", ""
	}

	m, err := match(reg, u)
	if err != nil {
		return nil, err
	}
	svc := m.svc
	call.ServiceID, call.ServiceURL = svc.ID, svc.URL
	if len(m.ties) > 0 {
		note("The url of %s is the same prefix; %s is used (the first by name).", strings.Join(m.ties, ", "), svc.ID)
	}
	for _, seg := range m.rest {
		p, err := url.PathUnescape(seg)
		if err != nil {
			p = seg
		}
		switch p {
		case "":
			note("An empty path segment of the URL is left out: pathParams cannot hold one.")
			continue
		case ".", "..":
			return nil, fmt.Errorf("the URL's path holds the segment %q, which api.rest.v1 does not send (it would leave the service's url)", p)
		}
		call.PathParams = append(call.PathParams, p)
	}
	if m.trailingSlash {
		note("The URL's trailing slash is left out: pathParams cannot end in one.")
	}
	query = append(urlencodedPairs(m.query), query...)
	call.Query = dedupe(query, "query parameter", "queryParams holds one value per name", note)

	// Headers.
	configured := svc.Auth.Type != config.AuthNone
	var dropped []string
	var header []Param
	authNote := func(what string) {
		if configured {
			note("%s left out: serviceId %q has %s authorization configured, which replaces it.", what, svc.ID, reg.AuthSummary(svc))
		} else {
			note("%s kept as written, a hard-coded credential: configure the authorization of serviceId %q instead.", what, svc.ID)
		}
	}
	for _, h := range c.Headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			if n, isEmpty := strings.CutSuffix(strings.TrimSpace(h), ";"); isEmpty {
				header = append(header, Param{strings.TrimSpace(n), ""})
			}
			continue // not a header curl sends
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if value == "" {
			continue // "Name:" removes a header curl would add
		}
		switch {
		case strings.EqualFold(name, "Authorization"):
			authNote("The Authorization header is")
			if configured {
				continue
			}
		case restlsDefault(name, value, call.Function, len(c.Form) > 0):
			continue
		case clientSets(name):
			dropped = append(dropped, name)
			continue
		}
		header = append(header, Param{name, value})
	}
	if c.HasUser {
		if configured {
			authNote("The -u credentials are")
		} else if _, _, ok := strings.Cut(c.User, ":"); !ok {
			note("The -u user has no password (curl would ask for it): it is left out; configure the authorization of serviceId %q.", svc.ID)
		} else {
			authNote("The -u credentials are")
			header = append(header, Param{"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte(c.User))})
		}
	}
	if u.User != nil {
		authNote("The credentials in the URL are")
		if !configured {
			pw, _ := u.User.Password()
			header = append(header, Param{"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw))})
		}
	}
	if len(dropped) > 0 {
		note("Left out the headers the HTTP client sets itself: %s.", strings.Join(dropped, ", "))
	}

	// The payload.
	switch {
	case len(c.Form) > 0 && body != "":
		return nil, errors.New("the command sends both form fields (-F) and data (-d); curl refuses that too")
	case len(c.Form) > 0:
		var buf bytes.Buffer
		buf.WriteByte('{')
		for i, f := range c.Form {
			if !f.Literal && (strings.HasPrefix(f.Value, "@") || strings.HasPrefix(f.Value, "<")) {
				return nil, fmt.Errorf("form field %q reads the file %s; api.rest.v1 form fields are text: paste its content with --form-string", f.Name, f.Value[1:])
			}
			if i > 0 {
				buf.WriteByte(',')
			}
			k, _ := json.Marshal(f.Name)
			v, _ := json.Marshal(f.Value)
			buf.Write(k)
			buf.WriteByte(':')
			buf.Write(v)
		}
		buf.WriteByte('}')
		if call.Function == "get" || call.Function == "delete" {
			note("The form fields are left out: api.rest.v1.%s sends no payload.", call.Function)
			break
		}
		header = setMultipart(header)
		call.Payload = json.RawMessage(buf.Bytes())
	case body != "":
		if call.Function == "get" || call.Function == "delete" {
			note("The body is left out: api.rest.v1.%s sends no payload.", call.Function)
			break
		}
		p, form, err := payload(body, bodyType, headerValue(header, "Content-Type"), note)
		if err != nil {
			return nil, err
		}
		if form {
			// The payload goes as JSON, with restls's Content-Type.
			header = slices.DeleteFunc(header, func(p Param) bool { return strings.EqualFold(p.Name, "Content-Type") })
		}
		call.Payload = p
	}
	if call.Payload == nil && call.Function != "get" && call.Function != "delete" {
		call.Payload = json.RawMessage("{}")
	}
	call.Header = dedupe(header, "header", "HEADER holds one value per name", note)
	for _, v := range c.Vars {
		// Only those left in the call (not in a header left out).
		if call.mentions("$" + v) {
			note("$%s is a shell variable the command does not set; it is left in the text: put its value in.", v)
		}
	}
	if len(c.Ignored) > 0 {
		note("Ignored curl options that api.rest.v1 calls cannot express (the configuration or the platform decides): %s.", strings.Join(c.Ignored, " "))
	}
	return call, nil
}

// restlsDefault reports a header that restls sends by itself with this
// value: left out silently, the call sends it anyway.
func restlsDefault(name, value, function string, form bool) bool {
	switch strings.ToLower(name) {
	case "accept":
		return value == "application/json"
	case "content-type":
		return !form && value == "application/json" && function != "get" && function != "delete"
	case "user-agent":
		return value == "Go-http-client/1.1"
	case "accept-encoding":
		return value == "gzip"
	case "expect":
		return true
	}
	return false
}

// clientSets reports a header the HTTP client (or a browser) sets itself:
// the Fetch standard's forbidden request-header names. A script setting
// them would change nothing, or break the request.
func clientSets(name string) bool {
	n := strings.ToLower(name)
	if strings.HasPrefix(n, "sec-") || strings.HasPrefix(n, "proxy-") || strings.HasPrefix(n, "access-control-request-") {
		return true
	}
	switch n {
	case "accept-charset", "accept-encoding", "connection", "content-length", "cookie", "cookie2", "date", "dnt",
		"expect", "host", "keep-alive", "origin", "referer", "set-cookie", "te", "trailer", "transfer-encoding",
		"upgrade", "via", "priority":
		return true
	}
	return false
}

func headerValue(h []Param, name string) string {
	for _, p := range h {
		if strings.EqualFold(p.Name, name) {
			return p.Value
		}
	}
	return ""
}

// setMultipart makes the Content-Type multipart/form-data, which sends
// the payload as a form (docs/api.md).
func setMultipart(h []Param) []Param {
	for i, p := range h {
		if strings.EqualFold(p.Name, "Content-Type") {
			h[i].Value = "multipart/form-data"
			return h
		}
	}
	return append(h, Param{"Content-Type", "multipart/form-data"})
}

// dedupe keeps the last value of each name (case-insensitive for
// headers, as HTTP compares them), in the order of first appearance.
func dedupe(list []Param, what, why string, note func(string, ...any)) []Param {
	out := list[:0:0]
	at := map[string]int{}
	for _, p := range list {
		k := p.Name
		if what == "header" {
			k = strings.ToLower(k)
		}
		if i, ok := at[k]; ok {
			note("The %s %s is given more than once; %s, so the last (%q) is kept.", what, p.Name, why, p.Value)
			out[i].Value = p.Value
			continue
		}
		at[k] = len(out)
		out = append(out, p)
	}
	return out
}

// joinData joins the data options as curl does: -d values with "&",
// --json values as they are. It returns the body and the Content-Type
// curl sends with it.
func joinData(ds []Data) (string, string, error) {
	var b strings.Builder
	ctype := ""
	for i, d := range ds {
		text := d.Text
		switch d.Kind {
		case "data", "binary", "json":
			if strings.HasPrefix(text, "@") {
				return "", "", fmt.Errorf("the data option reads the file %s; paste its content with --data-raw instead", text[1:])
			}
		case "urlencode":
			if name, file, ok := strings.Cut(text, "@"); ok && !strings.Contains(name, "=") {
				return "", "", fmt.Errorf("--data-urlencode reads the file %s; paste its content instead", file)
			}
			text = encodeData(text)
		}
		if i > 0 && d.Kind != "json" {
			b.WriteByte('&')
		}
		b.WriteString(text)
		if d.Kind == "json" {
			ctype = "application/json"
		} else if ctype == "" {
			ctype = "application/x-www-form-urlencoded"
		}
	}
	return b.String(), ctype, nil
}

// encodeData is what --data-urlencode sends for "content", "=content" or
// "name=content": the content percent-encoded.
func encodeData(s string) string {
	name, content, ok := strings.Cut(s, "=")
	if !ok {
		return url.QueryEscape(s)
	}
	if name == "" {
		return url.QueryEscape(content)
	}
	return name + "=" + url.QueryEscape(content)
}

// urlencodedPairs splits a query or a form body; a name without "="
// gets an empty value.
func urlencodedPairs(s string) []Param {
	var out []Param
	for _, part := range strings.Split(s, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		if uv, err := url.QueryUnescape(v); err == nil {
			v = uv
		}
		out = append(out, Param{k, v})
	}
	return out
}

// payload turns the body into the call's payload: JSON as it is; a
// urlencoded form (curl's default for -d) as an object of its fields,
// with a note, since api.rest.v1 sends JSON.
func payload(body, bodyType, contentType string, note func(string, ...any)) (p json.RawMessage, form bool, err error) {
	trimmed := bytes.TrimSpace([]byte(body))
	if json.Valid(trimmed) {
		return json.RawMessage(trimmed), false, nil
	}
	ct := strings.ToLower(contentType)
	if ct == "" {
		ct = bodyType
	}
	if strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		var buf bytes.Buffer
		buf.WriteByte('{')
		pairs := dedupe(urlencodedPairs(body), "form field", "the payload holds one value per name", note)
		for i, p := range pairs {
			if i > 0 {
				buf.WriteByte(',')
			}
			k, _ := json.Marshal(p.Name)
			v, _ := json.Marshal(p.Value)
			buf.Write(k)
			buf.WriteByte(':')
			buf.Write(v)
		}
		buf.WriteByte('}')
		note("The body is a urlencoded form; api.rest.v1 sends its fields as a JSON object: check that the service takes JSON.")
		return json.RawMessage(buf.Bytes()), true, nil
	}
	return nil, false, errors.New("the body is not JSON; api.rest.v1 sends JSON or multipart form fields only")
}

// mentions reports whether s is in any text of the call.
func (c *Call) mentions(s string) bool {
	if strings.Contains(string(c.Payload), s) {
		return true
	}
	for _, p := range c.PathParams {
		if strings.Contains(p, s) {
			return true
		}
	}
	for _, list := range [][]Param{c.Query, c.Header} {
		for _, p := range list {
			if strings.Contains(p.Name, s) || strings.Contains(p.Value, s) {
				return true
			}
		}
	}
	return false
}
