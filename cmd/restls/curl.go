package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime/curlin"
	"github.com/restls/restls/runtime/restclient"
)

// curlJSON is what restls curl --json prints: restls.pasteCurl's answer
// without the edit.
type curlJSON struct {
	ServiceID string   `json:"serviceId"`
	Call      string   `json:"call"`
	Notes     []string `json:"notes"`
}

func runCurl(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "curl", "[--kind K] [--json] [config flags] [CURL_COMMAND | curl ARG... | -]", `
Turns a curl command line (a browser's "Copy as cURL", a colleague's, or
what restls run --curl wrote) into the api.rest.v1 call that sends the
same request to the configured serviceId whose url the command's URL
starts with, with pathParams, queryParams, headers and payload. It is the
engine of the editor's "Paste curl" (restls.pasteCurl, docs/lsp.md): it
reads the command as a POSIX shell would and never runs any of it.

The command comes as one argument holding the whole command line
(restls curl "$(pbpaste)"), as the words of the command after restls
curl's own flags (restls curl curl -H 'X-Trace: 1' https://...; the
leading word curl may be left out after --), or on standard input when
no argument (or -) is given.

It prints the call, with what it left out or changed (an Authorization
header the configuration supplies, headers the HTTP client sets itself)
as // restls: comment lines above it; --json prints {serviceId, call,
notes}. When no serviceId's url matches, it says which base url to
configure (and the services on the same host) and exits 1.

Exit status: 0 when the call was made; 1 when the command cannot be read
or no service matches; 2 for usage errors and when the configuration or
standard input cannot be read.`)
	kindName := fs.String("kind", string(config.ScriptService), "script `kind` whose services to match: scriptService, scriptTask or validationScript")
	asJSON := fs.Bool("json", false, "print one JSON object: serviceId, call, notes")
	cf := configFlags{env: env}
	cf.register(fs)
	if rc := parseFlags(env, fs, args); rc >= 0 {
		if rc == 2 {
			// Most likely a curl option taken for one of ours.
			fmt.Fprintln(env.stderr, "restls curl: give the curl command after restls curl's flags: starting with the word curl, after --, as one quoted argument, or on standard input")
		}
		return rc
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.stderr, "restls curl: "+format+"\n", a...)
		return 2
	}
	kind, err := config.ParseKind(*kindName)
	if err != nil {
		return usageErr("%v", err)
	}
	text, err := curlText(env, fs.Args())
	if err != nil {
		return usageErr("%v", err)
	}
	if cf.rootMissing("curl") {
		return 2
	}
	reg := cf.session(nil).Snapshot().Config.For(kind)
	if !reg.Loaded {
		for _, d := range reg.Diagnostics {
			fmt.Fprintln(env.stderr, d.String())
		}
		return usageErr("%s", errNoConfiguration)
	}
	call, err := curlin.FromCurl(text, reg)
	if err != nil {
		var nse *curlin.NoServiceError
		if errors.As(err, &nse) {
			fmt.Fprintf(env.stderr, "restls curl: %v\n", err)
		} else {
			fmt.Fprintf(env.stderr, "restls curl: cannot read the curl command: %v\n", err)
		}
		return 1
	}
	if *asJSON {
		notes := call.Notes
		if notes == nil {
			notes = []string{}
		}
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // the command as a shell reads it: "a=1&b=2", not "a=1\u0026b=2"
		if err := enc.Encode(curlJSON{ServiceID: call.ServiceID, Call: call.Text(), Notes: notes}); err != nil {
			fmt.Fprintf(env.stderr, "restls curl: %v\n", err)
			return 1
		}
		return 0
	}
	fmt.Fprintln(env.stdout, call.Snippet(""))
	return 0
}

// curlText is the command line restls curl reads: the one argument as
// it is (a URL alone gets curl before it), several as the words of the
// command (quoted again for the shell reader, curl put before them when
// they do not start with it), none or - standard input.
func curlText(env *cliEnv, words []string) (string, error) {
	switch {
	case len(words) == 0 || len(words) == 1 && words[0] == "-":
		data, err := input.ReadFrom(env.stdin, "standard input", input.Curl)
		if err != nil {
			return "", fmt.Errorf("cannot read the curl command from standard input: %v", err)
		}
		if strings.TrimSpace(string(data)) == "" {
			return "", errors.New("no curl command: give it as an argument or on standard input")
		}
		return string(data), nil
	case len(words) == 1 && !strings.ContainsAny(strings.TrimSpace(words[0]), " \t\r\n") && words[0] != "curl":
		return "curl " + restclient.ShellQuote(words[0]), nil
	case len(words) == 1:
		return words[0], nil
	}
	quoted := make([]string, 0, len(words)+1)
	if words[0] != "curl" {
		quoted = append(quoted, "curl")
	}
	for _, w := range words {
		quoted = append(quoted, restclient.ShellQuote(w))
	}
	return strings.Join(quoted, " "), nil
}
