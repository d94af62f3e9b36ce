// Package tsgentest writes TypeScript declarations of Go types as
// encoding/json marshals them, so that the clients of the wire (the VS
// Code extension and the designer module) read the server's answers
// through types generated from the Go that writes them, not hand-written
// copies. web/wire_test.go generates web/designer/src/wire.gen.d.ts with it
// and fails when the committed file is stale.
//
// It follows encoding/json: json tags name fields ("-" drops one),
// omitempty makes a field optional, a nil pointer, slice or map without
// omitempty is null, []byte is a base64 string, embedded structs without a
// name are inlined (the shallowest field of a name wins, as in
// encoding/json), and ",string" makes a number or bool a string. A type
// with its own MarshalJSON or MarshalText has no shape reflection can see:
// Config says what it writes, or generation fails naming the type.
//
// tsgentest is a test helper (only _test.go files import it); it imports
// nothing of restls.
package tsgentest
