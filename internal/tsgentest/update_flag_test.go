package tsgentest

// Linking golden defines -update in this test binary, so that
// `go test ./... -update` (which regenerates web's wire.gen.d.ts) works
// across the module (internal/goldentest/doc.go).
import _ "github.com/restls/restls/internal/goldentest"
