// Package config owns the service registry: it reads the platform's
// properties (YAML or flat .properties), the two service XML files and the
// platform timeout configuration, merges them in the platform's reading
// order, resolves serviceId references, validates authorization and returns
// an immutable Snapshot with diagnostics.
//
// Every file is read through ReadFile (input.ReadFile): regular files of
// at most 16 MiB, so that no path can hang or exhaust a reader. XML is
// decoded to UTF-8 from the encoding a Java parser would read it in.
//
// Beside the registries, a Snapshot keeps every api and oAuth definition
// as written (Entries, entries.go), overridden and broken ones included,
// with the exact byte range of each id, for navigation.
//
// Loading never fails as a whole: a broken source yields diagnostics and the
// other sources still count. No credential ever leaves this package in a
// printable form: credentials are held as Secret values, whose String,
// GoString, Format and MarshalJSON all mask them.
//
// config must not import the LSP packages, the JavaScript engine or any other
// restls package but input (the bounded reader, a leaf); everything else
// builds on it. jsdepth (the nesting budget of scripts) sits beside it at
// the bottom: it imports nothing of restls, and hints and runtime import
// both.
package config
