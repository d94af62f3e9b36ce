// Package jslevel owns the engine profile of platform scripts: the
// JavaScript language levels a platform's engine may accept (es5.1,
// es2015 ... es2025, latest), the one table of the syntax features and
// builtins each level introduced, and the static detector that finds
// their uses in a parsed script (restls.yaml's engine key; the
// engine-syntax and engine-builtin diagnostics; a dry run under a
// profile refuses what they report, with the same message).
//
// Syntax is read from goja's syntax tree, exactly. Builtins are found by
// name, statically: a global (Map, Promise, globalThis) read where the
// script declares no such name, a static member of a global
// (Object.entries, Array.from), X.prototype.m, and a method called on a
// value (x.includes(y), s.padStart(2)). A method's receiver is typed only
// where it is evident (a literal, a method that returns an array or a
// string, a variable only ever given such values); elsewhere the method is
// reported only when every builtin of that name is beyond the level. What
// is not seen: members read with brackets (o["includes"]), builtins
// reached through aliases (var O = Object; O.entries), a script's own
// objects with a method of a builtin's name (reported: rename it), and
// builtins the script tests for first (typeof X, if (X.m), X.m ? :,
// X.m && / || / ??) or assigns itself (a polyfill), which are trusted.
//
// jslevel imports jsdepth (the nesting budget, checked before any parse)
// and goja's parser: never another restls package. hints and engine both
// ask it, so the editor, restls check and every run door judge a script
// the same way.
package jslevel
