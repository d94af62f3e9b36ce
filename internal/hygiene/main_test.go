package hygiene_test

import (
	"testing"

	// Linking golden defines -update in this test binary, so that
	// `go test ./... -update` works across the module.
	_ "github.com/restls/restls/internal/goldentest"
	"github.com/restls/restls/internal/restlstest"
)

// TestMain removes the restls binary restlstest built for the tests.
func TestMain(m *testing.M) { restlstest.Main(m) }
