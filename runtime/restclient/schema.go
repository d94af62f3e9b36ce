package restclient

import _ "embed"

// MockSchema is the JSON Schema (draft 2020-12) of a fixtures file, the
// format --mock reads and --record writes. Editors associate it with
// *.mock.yaml and *.mock.json; `serve --http` serves it.
//
//go:embed schema/mock.schema.json
var MockSchema []byte
