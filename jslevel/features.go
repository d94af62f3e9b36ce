package jslevel

import "strings"

// Kind says which diagnostic reports a feature.
type Kind uint8

const (
	// Syntax: the platform's parser refuses the whole script
	// (engine-syntax).
	Syntax Kind = iota
	// Builtin: the name is missing at run time on the platform
	// (engine-builtin).
	Builtin
)

// Diagnostic codes (docs/diagnostics.md), also a refused run's error code.
const (
	CodeSyntax  = "engine-syntax"
	CodeBuiltin = "engine-builtin"
)

// Code is the diagnostic code of k.
func (k Kind) Code() string {
	if k == Builtin {
		return CodeBuiltin
	}
	return CodeSyntax
}

// Feature is one row of the table: what a level introduced.
type Feature struct {
	// Name is how messages name it: "arrow functions", "Object.entries".
	Name  string
	Level Level
	Kind  Kind
	// Advice is what to write instead, at the oldest level (es5.1).
	Advice string
	// global, static, proto say how a builtin is found: a global name
	// (Map), a static member of a global ("Object.entries"), or a method
	// of a prototype (type "Array", method "includes").
	global      string
	static      string
	protoType   string
	protoMethod string
}

// The syntax features, in the order of the levels.
var (
	fArrow           = &Feature{Name: "arrow functions", Level: ES2015, Advice: "write function (x) { return ...; }"}
	fLexical         = &Feature{Name: "let and const declarations", Level: ES2015, Advice: "declare with var"}
	fTemplate        = &Feature{Name: "template literals", Level: ES2015, Advice: "join strings with +"}
	fTagged          = &Feature{Name: "tagged templates", Level: ES2015, Advice: "call the function with the strings and values"}
	fClass           = &Feature{Name: "classes", Level: ES2015, Advice: "write a constructor function and put its methods on its prototype"}
	fDestructuring   = &Feature{Name: "destructuring", Level: ES2015, Advice: "read each property into its own var"}
	fDefaultParam    = &Feature{Name: "default parameters", Level: ES2015, Advice: "set the default in the body: if (x === undefined) { x = ...; }"}
	fRestParam       = &Feature{Name: "rest parameters", Level: ES2015, Advice: "read the extra arguments from arguments"}
	fSpread          = &Feature{Name: "spread in calls and array literals", Level: ES2015, Advice: "use f.apply(null, list) or a.concat(b)"}
	fForOf           = &Feature{Name: "for...of loops", Level: ES2015, Advice: "loop with an index: for (var i = 0; i < a.length; i++)"}
	fComputed        = &Feature{Name: "computed property names", Level: ES2015, Advice: "make the object, then set o[key] = value"}
	fShorthand       = &Feature{Name: "shorthand properties", Level: ES2015, Advice: "write name: name"}
	fMethod          = &Feature{Name: "shorthand methods", Level: ES2015, Advice: "write name: function () { ... }"}
	fGenerator       = &Feature{Name: "generators", Level: ES2015, Advice: "return an array, or an object with a next function"}
	fNewTarget       = &Feature{Name: "new.target", Level: ES2015, Advice: "test this instanceof the constructor"}
	fBinOct          = &Feature{Name: "binary and octal literals (0b, 0o)", Level: ES2015, Advice: "write the number in decimal or hexadecimal (0x)"}
	fCodePoint       = &Feature{Name: "code point escapes (\\u{...})", Level: ES2015, Advice: "write the character as \\uXXXX escapes (a surrogate pair above \\uFFFF)"}
	fRegexpYU        = &Feature{Name: "regular expression flags y and u", Level: ES2015, Advice: "drop the flag"}
	fExponent        = &Feature{Name: "exponent operator (**)", Level: ES2016, Advice: "call Math.pow(a, b)"}
	fAsync           = &Feature{Name: "async functions and await", Level: ES2017, Advice: "call the function and use its value; api.rest.v1 calls answer synchronously"}
	fTrailingComma   = &Feature{Name: "trailing commas in parameter and argument lists", Level: ES2017, Advice: "remove the last comma"}
	fObjectRest      = &Feature{Name: "object rest and spread properties", Level: ES2018, Advice: "copy the properties in a for...in loop"}
	fRegexpS         = &Feature{Name: "regular expression flag s (dotAll)", Level: ES2018, Advice: "drop the flag and write [\\s\\S] for the dot"}
	fNamedGroup      = &Feature{Name: "named capture groups", Level: ES2018, Advice: "use a numbered group and read match[1]"}
	fLookbehind      = &Feature{Name: "lookbehind assertions", Level: ES2018, Advice: "match the text before too, in a group"}
	fPropertyEscape  = &Feature{Name: "Unicode property escapes (\\p{...})", Level: ES2018, Advice: "list the characters in a class"}
	fOptionalCatch   = &Feature{Name: "optional catch binding", Level: ES2019, Advice: "name the exception: catch (e)"}
	fLineSeparator   = &Feature{Name: "U+2028 or U+2029 in a string literal", Level: ES2019, Advice: "write \\u2028 or \\u2029"}
	fOptionalChain   = &Feature{Name: "optional chaining (?.)", Level: ES2020, Advice: "test each step: a && a.b"}
	fNullish         = &Feature{Name: "nullish coalescing (??)", Level: ES2020, Advice: "write x !== null && x !== undefined ? x : y"}
	fBigIntLiteral   = &Feature{Name: "BigInt literals (123n)", Level: ES2020, Advice: "use a number, or a string for large identifiers"}
	fLogicalAssign   = &Feature{Name: "logical assignment (&&=, ||=, ??=)", Level: ES2021, Advice: "write a = a || b"}
	fNumSeparator    = &Feature{Name: "numeric separators (1_000)", Level: ES2021, Advice: "remove the underscores"}
	fClassField      = &Feature{Name: "class fields", Level: ES2022, Advice: "set the field in the constructor"}
	fPrivate         = &Feature{Name: "private fields and methods (#name)", Level: ES2022, Advice: "use an ordinary property"}
	fStaticBlock     = &Feature{Name: "class static blocks", Level: ES2022, Advice: "run the code after the class"}
	syntaxFeatures   = []*Feature{fArrow, fLexical, fTemplate, fTagged, fClass, fDestructuring, fDefaultParam, fRestParam, fSpread, fForOf, fComputed, fShorthand, fMethod, fGenerator, fNewTarget, fBinOct, fCodePoint, fRegexpYU, fExponent, fAsync, fTrailingComma, fObjectRest, fRegexpS, fNamedGroup, fLookbehind, fPropertyEscape, fOptionalCatch, fLineSeparator, fOptionalChain, fNullish, fBigIntLiteral, fLogicalAssign, fNumSeparator, fClassField, fPrivate, fStaticBlock}
	builtinFeatures  = builtins()
	featuresByStatic = map[string]*Feature{}
	featuresByGlobal = map[string]*Feature{}
	// staticNames are the member names of featuresByStatic.
	staticNames = map[string]bool{}
	// featuresByMethod: the prototype methods of each name.
	featuresByMethod = map[string][]*Feature{}
)

func init() {
	for _, f := range builtinFeatures {
		switch {
		case f.global != "":
			featuresByGlobal[f.global] = f
		case f.static != "":
			featuresByStatic[f.static] = f
			staticNames[f.static[strings.IndexByte(f.static, '.')+1:]] = true
		default:
			featuresByMethod[f.protoMethod] = append(featuresByMethod[f.protoMethod], f)
		}
	}
}

// The table is syntaxFeatures then builtinFeatures: every syntax
// feature and builtin, with the level that introduced it.
// docs/configuration.md lists it (TestFeaturesDocumented).

func builtins() []*Feature {
	var out []*Feature
	global := func(l Level, advice string, names ...string) {
		for _, n := range names {
			out = append(out, &Feature{Name: n, Level: l, Kind: Builtin, Advice: advice, global: n})
		}
	}
	static := func(l Level, advice, of string, names ...string) {
		for _, n := range names {
			out = append(out, &Feature{Name: of + "." + n, Level: l, Kind: Builtin, Advice: advice, static: of + "." + n})
		}
	}
	proto := func(l Level, advice, of string, names ...string) {
		for _, n := range names {
			out = append(out, &Feature{Name: of + ".prototype." + n, Level: l, Kind: Builtin, Advice: advice, protoType: of, protoMethod: n})
		}
	}
	global(ES2015, "use plain objects, arrays and callbacks", "Promise", "Map", "Set", "WeakMap", "WeakSet", "Symbol", "Proxy", "Reflect")
	global(ES2015, "use an array of numbers", "ArrayBuffer", "DataView", "Int8Array", "Uint8Array", "Uint8ClampedArray",
		"Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "Float32Array", "Float64Array")
	global(ES2020, "use a number, or a string for large identifiers", "BigInt", "BigInt64Array", "BigUint64Array")
	global(ES2020, "use this at the top of the script, or the name of the global itself", "globalThis")
	global(ES2021, "throw an Error whose message lists the causes", "AggregateError")

	static(ES2015, "copy the properties in a for...in loop", "Object", "assign")
	static(ES2015, "compare with === (and test NaN with x !== x)", "Object", "is")
	static(ES2015, "make the object with Object.create(proto)", "Object", "setPrototypeOf")
	static(ES2015, "leave symbols out", "Object", "getOwnPropertySymbols")
	static(ES2017, "loop over Object.keys(o)", "Object", "entries", "values")
	static(ES2017, "call Object.getOwnPropertyDescriptor for each of Object.getOwnPropertyNames(o)", "Object", "getOwnPropertyDescriptors")
	static(ES2019, "build the object in a loop over the pairs", "Object", "fromEntries")
	static(ES2022, "call Object.prototype.hasOwnProperty.call(o, key)", "Object", "hasOwn")
	static(ES2015, "build the array in a loop", "Array", "from", "of")
	static(ES2015, "test with typeof, isFinite and Math.floor", "Number", "isInteger", "isSafeInteger", "isFinite", "isNaN")
	static(ES2015, "call the global parseFloat or parseInt", "Number", "parseFloat", "parseInt")
	static(ES2015, "write the constant (2.220446049250313e-16, 9007199254740991)", "Number", "EPSILON", "MAX_SAFE_INTEGER", "MIN_SAFE_INTEGER")
	static(ES2015, "compute it with the ES5 Math functions", "Math", "trunc", "sign", "cbrt", "log10", "log2", "log1p", "expm1",
		"hypot", "clz32", "fround", "imul", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh")
	static(ES2015, "use String.fromCharCode (with a surrogate pair above 0xFFFF)", "String", "fromCodePoint")
	static(ES2015, "write the string with escaped backslashes", "String", "raw")
	static(ES2020, "collect each outcome yourself", "Promise", "allSettled")
	static(ES2021, "collect each outcome yourself", "Promise", "any")

	proto(ES2015, "loop with an index", "Array", "find", "findIndex", "fill", "copyWithin", "keys", "values", "entries")
	proto(ES2015, "call indexOf", "String", "includes")
	proto(ES2015, "compare with indexOf or a substring", "String", "startsWith", "endsWith")
	proto(ES2015, "join an array: new Array(n + 1).join(s)", "String", "repeat")
	proto(ES2015, "call charCodeAt (and combine a surrogate pair)", "String", "codePointAt")
	proto(ES2015, "leave the text as it is", "String", "normalize")
	proto(ES2015, "iterate with forEach", "Map", "keys", "values", "entries")
	proto(ES2015, "iterate with forEach", "Set", "keys", "values", "entries")
	proto(ES2016, "call indexOf(x) !== -1", "Array", "includes")
	proto(ES2017, "add the padding in a loop", "String", "padStart", "padEnd")
	proto(ES2018, "call the function in both then callbacks", "Promise", "finally")
	proto(ES2019, "concat the inner arrays in a loop", "Array", "flat", "flatMap")
	proto(ES2019, "call replace(/^\\s+/, \"\") or replace(/\\s+$/, \"\")", "String", "trimStart", "trimEnd")
	proto(ES2020, "call exec in a loop with the g flag", "String", "matchAll")
	proto(ES2021, "call split(a).join(b), or replace with a /g regular expression", "String", "replaceAll")
	proto(ES2022, "index from the end: a[a.length - 1]", "Array", "at")
	proto(ES2022, "index from the end: s.charAt(s.length - 1)", "String", "at")
	proto(ES2023, "loop from the end", "Array", "findLast", "findLastIndex")
	proto(ES2023, "copy with slice(), then sort, reverse or splice the copy", "Array", "toSorted", "toReversed", "toSpliced")
	proto(ES2023, "copy with slice() and set the element", "Array", "with")
	proto(ES2025, "build the result in a loop over one set", "Set", "union", "intersection", "difference", "symmetricDifference",
		"isSubsetOf", "isSupersetOf", "isDisjointFrom")
	return out
}
