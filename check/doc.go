// Package check lints a tree of scripts and the service configuration the
// way the language server would, for CI (restls check): it walks paths for
// scripts (include and exclude globs, .gitignore respected), decides each
// script's kind with config.KindMap, diagnoses every script in parallel
// with the hint engine and reports every configuration diagnostic, then
// writes the findings as text, JSON, SARIF 2.1.0 or GitHub workflow
// commands.
//
// It imports config and hints only: never lsp, runtime or anything above.
package check
