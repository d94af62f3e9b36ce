package faults

// -update is defined for every test package (internal/goldentest/doc.go).
import _ "github.com/restls/restls/internal/goldentest"
