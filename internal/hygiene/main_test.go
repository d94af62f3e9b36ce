package hygiene_test

import (
	"testing"

	"github.com/restls/restls/internal/restlstest"
)

// TestMain removes the restls binary restlstest built for the tests.
func TestMain(m *testing.M) { restlstest.Main(m) }
