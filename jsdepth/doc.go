// Package jsdepth owns the nesting budget of platform scripts: one linear,
// never-failing pass over a script's text that measures how deeply its
// brackets ( [ { and template substitutions ${ nest, and the limit beyond
// which no restls component hands the script to a recursive parser,
// compiler or tree walk. The same pass holds the parse budget: arrow
// functions without braces count as nesting, and the steps goja's parser
// spends on them and on labels (quadratic in their number) are counted
// against MaxCost. The hint engine and the runtime both check a script
// here first, so they judge it the same way.
//
// It also holds the depth limit of script values converted to JSON by the
// runtime (results, console arguments, payloads), so that both budgets
// are one documented family.
//
// jsdepth imports only the standard library: never another restls
// package, never the JavaScript engine. Everything that reads scripts may
// import it.
package jsdepth
