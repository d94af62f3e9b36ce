// Package curlin turns a curl command line (copied from a browser's
// network tab, a colleague or `restls run --curl`) into the text of an
// api.rest.v1 call: it reads the command as a POSIX shell would
// (mvdan.cc/sh/v3: quotes, $'...', line continuations, the variables our
// own export assigns), picks out the method, URL, headers, data and form
// fields, finds the configured serviceId whose resolved url is the
// longest prefix of the URL, and writes the call with pathParams,
// queryParams, headers and payload, with notes on what it left out (an
// Authorization header the configuration supplies, headers the HTTP
// client sets itself).
//
// It owns the reading of curl command lines and nothing else: it never
// runs a command, reads a file a command names or touches the network.
// It may import config (the registry) and no other restls package; the
// language server adapts it (lsp/command_curl.go: restls.pasteCurl, which
// VS Code and the designer page call) and so does restls curl
// (cmd/restls/curl.go).
package curlin
