package hints

import "strings"

// Parameter documentation, from docs/api.md#parameters.
var (
	paramServiceID = ParamInfo{"serviceId", "SERVICE_ID: the serviceId of a configured service (a string). " +
		"Scripts never address a URL: the platform configuration maps the serviceId to an address."}
	paramPath = ParamInfo{"path", "PATH: `{pathParams: [..], queryParams: {..}}`. " +
		"`pathParams` are path segments appended to the service address in order, joined with `/`; " +
		"`queryParams` are added as `?key=value` pairs, values are always strings. " +
		"Both are optional: pass `{}` for the service address itself."}
	paramHeader = ParamInfo{"header", "HEADER: request headers, a map of strings; pass `{}` for none. " +
		"`Content-Type: multipart/form-data` sends the payload as a multipart form. " +
		"Do not hard-code `Authorization`: configure it per service."}
	paramPayload = ParamInfo{"payload", "PAYLOAD: the request body, any valid object (sent as `application/json` " +
		"by default); for multipart, the fields of the form. Required: pass `{}` for an empty one."}
	paramTimeouts = ParamInfo{"timeouts?", "TIMEOUTS (optional, last): `{connectionTimeout: ms, readTimeout: ms}`. " +
		"Omitted values use the configured defaults; values above the maximum are clamped to it."}
)

const resultDoc = "Returns `{status: {code, message}, headers, body}` for a 2XX answer (body is the parsed JSON); " +
	"throws `{status: {code, message}, body}` (body as text) for any other status."

func newCall(name, method string, payload bool) Call {
	params := []ParamInfo{paramServiceID, paramPath, paramHeader}
	if payload {
		params = append(params, paramPayload)
	}
	params = append(params, paramTimeouts)
	labels := make([]string, len(params))
	for i, p := range params {
		labels[i] = p.Label
	}
	body := "sends no payload"
	if payload {
		body = "sends PAYLOAD as the request body (`application/json` by default)"
	}
	return Call{
		Name:       name,
		Method:     method,
		Signature:  "api.rest.v1." + name + "(" + strings.Join(labels, ", ") + ")",
		HasPayload: payload,
		Params:     params,
		Documentation: "Sends an HTTP " + method + " request to the service configured for `serviceId`, " +
			"extended by PATH; " + body + ". " + resultDoc,
	}
}

// calls are the five api.rest.v1 calls of docs/api.md#the-calls, in its order.
var calls = []Call{
	newCall("get", "GET", false),
	newCall("delete", "DELETE", false),
	newCall("post", "POST", true),
	newCall("put", "PUT", true),
	newCall("patch", "PATCH", true),
}

// callIndex returns the index of the call named name, or -1.
func callIndex(name string) int {
	for i := range calls {
		if calls[i].Name == name {
			return i
		}
	}
	return -1
}

// Argument positions shared by all calls.
const (
	argServiceID = 0
	argPath      = 1
	argHeader    = 2
	argPayload   = 3 // post, put and patch
)

// argKind names the parameter at index i of call c ("payload", "timeouts"
// or one of the fixed ones), or "" beyond the last parameter.
func argKind(c int, i int) string {
	if c < 0 || c >= len(calls) || i < 0 || i >= len(calls[c].Params) {
		return ""
	}
	return strings.TrimSuffix(calls[c].Params[i].Label, "?")
}

// snippet returns the call's snippet with a placeholder per parameter;
// TIMEOUTS is left out because it is optional.
func (c *Call) snippet() string {
	var b strings.Builder
	b.WriteString(c.Name)
	b.WriteString("(")
	n := 1
	for _, p := range c.Params {
		if strings.HasSuffix(p.Label, "?") {
			continue
		}
		if n > 1 {
			b.WriteString(", ")
		}
		switch p.Label {
		case "serviceId":
			b.WriteString(`"${1:serviceId}"`)
		case "path":
			b.WriteString(`${2:{\}}`)
		case "header":
			b.WriteString(`${3:{\}}`)
		case "payload":
			b.WriteString(`${4:{\}}`)
		}
		n++
	}
	b.WriteString(")")
	return b.String()
}
