// Package check lints a tree of scripts and the service configuration the
// way the language server would, for CI (restls check): it walks paths for
// scripts (include and exclude globs, .gitignore respected), takes one
// workspace.Snapshot of the project (the editor's: kind map, registry per
// kind, API descriptions and recorded answers, once loaded), diagnoses
// every script in parallel with the hint engine and reports every
// configuration and description-file diagnostic, then writes the findings
// as text, JSON, SARIF 2.1.0 or GitHub workflow commands.
//
// It imports config, hints and workspace only: never lsp, runtime or
// anything above.
package check
