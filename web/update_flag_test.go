package web

import "flag"

// -update rewrites the golden files of this package. (main's
// internal/golden defines the same flag for every package; when the two
// meet, this file gives way to its blank import.)
var _ = flag.Bool("update", false, "rewrite the golden files under testdata/golden with the current output (also: RESTLS_UPDATE_GOLDEN=1)")
