// Package index is the project index behind navigation: every script
// under a project root with its api.rest.v1 call sites (from
// hints.CallSites), and every configuration entry as written (from
// config.Snapshot.Entries), with exact byte ranges. References, rename,
// document and workspace symbols, code lens and inlay hints ask it; it
// answers from memory and never reads a file to answer.
//
// Scripts are found under the root with the one glob matcher
// (input.FileGlob) and read with input.ReadFile, at most MaxFiles of at
// most MaxFileSize bytes each. Build reads them all; Poll stats them and
// reads only what changed, past the caps too (a file the index has no
// room for is not read, one it read and left out is read again when it
// changes); Update brings the
// index current for one created, changed or deleted path, in place, so
// that after any sequence of updates it equals a fresh Build (FuzzUpdate).
// SetConfig replaces the configuration part when the registry reloads.
//
// index imports config, hints and leaves (input) only: never lsp, web,
// check, cmd or the runtime. Its results are its own types with byte
// offsets; the language server converts them.
package index
