package workspace

import _ "embed"

// Schema is the JSON Schema (draft 2020-12) of restls.yaml. The VS Code
// extension associates it with restls.yaml; serve --http serves it.
//
//go:embed schema/restls.schema.json
var Schema []byte
