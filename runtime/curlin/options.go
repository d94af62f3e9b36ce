package curlin

import (
	"fmt"
	"strings"
)

// option is what one curl option does to a Command; value says it takes
// an argument.
type option struct {
	value bool
	set   func(c *Command, v string) error
}

func ignored(value bool) option { return option{value: value} }

func header(name string) option {
	return option{value: true, set: func(c *Command, v string) error {
		c.Headers = append(c.Headers, name+": "+v)
		return nil
	}}
}

func data(kind string) option {
	return option{value: true, set: func(c *Command, v string) error {
		c.Data = append(c.Data, Data{Kind: kind, Text: v})
		return nil
	}}
}

func form(literal bool) option {
	return option{value: true, set: func(c *Command, v string) error {
		name, value, ok := strings.Cut(v, "=")
		if !ok {
			return fmt.Errorf("form field %q has no \"=\": write name=value", v)
		}
		c.Form = append(c.Form, FormField{Name: name, Value: value, Literal: literal})
		return nil
	}}
}

func refuse(why string) option {
	return option{value: true, set: func(*Command, string) error { return fmt.Errorf("%s", why) }}
}

// longOptions are curl's long options that matter here, and those that
// take an argument (so that the argument is not read as the URL). An
// option not listed is ignored as a flag without argument.
var longOptions = map[string]option{
	"request": {value: true, set: func(c *Command, v string) error { c.Method = v; return nil }},
	"head":    {set: func(c *Command, _ string) error { c.Head = true; return nil }},
	"get":     {set: func(c *Command, _ string) error { c.Get = true; return nil }},
	"url":     {value: true, set: func(c *Command, v string) error { c.URLs = append(c.URLs, v); return nil }},
	"header": {value: true, set: func(c *Command, v string) error {
		c.Headers = append(c.Headers, v)
		return nil
	}},
	"user-agent": header("User-Agent"),
	"referer":    header("Referer"),
	"cookie":     header("Cookie"),
	"oauth2-bearer": {value: true, set: func(c *Command, v string) error {
		c.Headers = append(c.Headers, "Authorization: Bearer "+v)
		return nil
	}},
	"data":           data("data"),
	"data-ascii":     data("data"),
	"data-binary":    data("binary"),
	"data-raw":       data("raw"),
	"data-urlencode": data("urlencode"),
	"json":           data("json"),
	"form":           form(false),
	"form-string":    form(true),
	"user":           {value: true, set: func(c *Command, v string) error { c.User, c.HasUser = v, true; return nil }},
	"url-query":      {value: true, set: func(c *Command, v string) error { c.URLQuery = append(c.URLQuery, v); return nil }},
	"upload-file":    refuse("-T/--upload-file sends a file; api.rest.v1 sends JSON or multipart text fields: paste the body with --data instead"),
	"config":         refuse("-K/--config reads options from a file; paste the options themselves"),

	"output": ignored(true), "max-time": ignored(true), "connect-timeout": ignored(true), "proxy": ignored(true),
	"retry": ignored(true), "retry-delay": ignored(true), "retry-max-time": ignored(true), "write-out": ignored(true),
	"cacert": ignored(true), "capath": ignored(true), "cert": ignored(true), "key": ignored(true), "cert-type": ignored(true),
	"key-type": ignored(true), "cookie-jar": ignored(true), "resolve": ignored(true), "connect-to": ignored(true),
	"proxy-user": ignored(true), "limit-rate": ignored(true), "speed-limit": ignored(true), "speed-time": ignored(true),
	"max-redirs": ignored(true), "dump-header": ignored(true), "range": ignored(true), "interface": ignored(true),
	"dns-servers": ignored(true), "max-filesize": ignored(true), "time-cond": ignored(true), "trace": ignored(true),
	"trace-ascii": ignored(true), "stderr": ignored(true), "continue-at": ignored(true), "unix-socket": ignored(true),
	"abstract-unix-socket": ignored(true), "proto": ignored(true), "proto-redir": ignored(true), "noproxy": ignored(true),
	"expect100-timeout": ignored(true), "happy-eyeballs-timeout-ms": ignored(true), "keepalive-time": ignored(true),
	"pinnedpubkey": ignored(true), "ciphers": ignored(true), "tls-max": ignored(true), "aws-sigv4": ignored(true),
	"request-target": ignored(true), "local-port": ignored(true), "variable": ignored(true), "pass": ignored(true),
	"proxy-header": ignored(true), "preproxy": ignored(true), "socks5": ignored(true), "socks5-hostname": ignored(true),
	"ftp-port": ignored(true), "quote": ignored(true), "mail-from": ignored(true), "mail-rcpt": ignored(true),
	"telnet-option": ignored(true), "netrc-file": ignored(true), "output-dir": ignored(true), "etag-save": ignored(true),
	"etag-compare": ignored(true), "parallel-max": ignored(true), "ssl-sessions": ignored(true), "engine": ignored(true),
	"crlfile": ignored(true), "hostpubmd5": ignored(true), "hostpubsha256": ignored(true), "sasl-authzid": ignored(true),
	"login-options": ignored(true), "oauth2-bearer-file": ignored(true), "doh-url": ignored(true), "ip-tos": ignored(true),
	"vlan-priority": ignored(true), "retry-all-errors": ignored(false),
}

// quiet are the options that change nothing a call could express or
// would miss: how curl prints, which HTTP version, compression (restls's
// client asks for gzip by itself). Any other ignored option is named in a
// note (-k, -L, --max-time, a proxy: restls does not do what they ask).
var quiet = map[string]bool{
	"g": true, "globoff": true, "path-as-is": true, "compressed": true, "http1.1": true, "http1.0": true,
	"http2": true, "http2-prior-knowledge": true, "http3": true, "s": true, "silent": true, "S": true,
	"show-error": true, "v": true, "verbose": true, "i": true, "include": true, "N": true, "no-buffer": true,
	"#": true, "progress-bar": true, "o": true, "output": true, "O": true, "remote-name": true, "w": true,
	"write-out": true, "D": true, "dump-header": true, "stderr": true, "trace": true, "trace-ascii": true,
	"f": true, "fail": true, "fail-with-body": true, "4": true, "6": true, "tcp-nodelay": true, "q": true,
	"0": true,
}

// shortOptions are curl's one-letter options that map to a long one.
var shortOptions = map[byte]string{
	'X': "request", 'I': "head", 'G': "get", 'H': "header", 'A': "user-agent", 'e': "referer", 'b': "cookie",
	'd': "data", 'F': "form", 'u': "user", 'T': "upload-file", 'K': "config", 'o': "output", 'm': "max-time",
	'x': "proxy", 'w': "write-out", 'E': "cert", 'c': "cookie-jar", 'U': "proxy-user", 'Y': "speed-limit",
	'y': "speed-time", 'D': "dump-header", 'r': "range", 'z': "time-cond", 'C': "continue-at", 'P': "ftp-port",
	'Q': "quote", 't': "telnet-option",
}

// parseArgs reads curl's arguments (after "curl") the way curl does:
// options and URLs in any order, short options clustered (-sSL) or with
// their argument attached (-XPOST), "--" before arguments that are all
// URLs.
func parseArgs(args []string) (*Command, error) {
	c := &Command{}
	seen := map[string]bool{}
	ignore := func(name string) {
		if quiet[strings.TrimLeft(name, "-")] {
			return
		}
		if !seen[name] {
			seen[name] = true
			c.Ignored = append(c.Ignored, name)
		}
	}
	apply := func(display, long string, rest *[]string, attached string, hasAttached bool) error {
		o, ok := longOptions[long]
		if !ok {
			ignore(display)
			return nil
		}
		v := ""
		if o.value {
			switch {
			case hasAttached:
				v = attached
			case len(*rest) > 0:
				v, *rest = (*rest)[0], (*rest)[1:]
			default:
				return fmt.Errorf("curl option %s needs a value", display)
			}
		}
		if o.set == nil {
			ignore(display)
			return nil
		}
		if err := o.set(c, v); err != nil {
			return fmt.Errorf("%s: %w", display, err)
		}
		return nil
	}
	for len(args) > 0 {
		a := args[0]
		args = args[1:]
		switch {
		case a == "--":
			c.URLs = append(c.URLs, args...)
			return c, nil
		case strings.HasPrefix(a, "--"):
			if err := apply(a, a[2:], &args, "", false); err != nil {
				return nil, err
			}
		case len(a) > 1 && a[0] == '-':
			for i := 1; i < len(a); i++ {
				long, ok := shortOptions[a[i]]
				if !ok {
					ignore("-" + a[i:i+1])
					continue
				}
				if longOptions[long].value {
					if err := apply("-"+a[i:i+1], long, &args, a[i+1:], i+1 < len(a)); err != nil {
						return nil, err
					}
					break
				}
				if err := apply("-"+a[i:i+1], long, &args, "", false); err != nil {
					return nil, err
				}
			}
		default:
			c.URLs = append(c.URLs, a)
		}
	}
	return c, nil
}
