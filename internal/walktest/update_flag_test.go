package walktest

// Linking golden defines -update in this test binary, so that
// `go test ./... -update` works across the module (internal/goldentest/doc.go).
import _ "github.com/restls/restls/internal/goldentest"
