package scripttest

import _ "embed"

// Schema is the JSON Schema (draft 2020-12) of a test file. Its fixtures
// refer to restclient.MockSchema by its $id.
//
//go:embed schema/test.schema.json
var Schema []byte
