// Package runtime runs platform scripts in goja with the complete
// api.rest.v1 and records a dry-run trace: every call's request and
// response (credentials masked), console output, and the script's result
// or uncaught error with its position.
//
// It owns the script side only: argument checks that become TypeErrors,
// conversion between script values and restclient requests and results,
// script kinds, the context object, the time limit, and the conversion of
// results, console arguments and payloads to JSON within that limit and
// jsdepth's depth limit. A run's Result is runtime/dryrun's type, so the
// packages that carry it need not import this one. The HTTP work is
// runtime/restclient's; the nesting
// budget checked before a script is parsed is jsdepth's. It may import
// config, jsdepth, runtime/dryrun and runtime/restclient of restls; it must not import the
// LSP packages or cmd; the language server reaches Run through a function
// injected by cmd/restls.
//
// The name shadows the standard library's runtime package; import it under
// an alias (for example scriptrt) where both are needed.
package runtime
