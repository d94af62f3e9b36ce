// Package workspace is the project as every surface sees it: what the
// language server, restls check, test, run and services, and the designer
// backend agree a project is.
//
// This first piece owns the project file, restls.yaml (project.go): found
// by walking up from a script, a test file or the working directory to the
// repository root (FindProject), as tsconfig.json and .golangci.yml are;
// decoded with input's budgeted YAML, every unknown key a diagnostic with
// its line, column and the nearest known key (keys.go); resolved into
// Project, whose paths are relative to the file. Init writes a first one
// from a platform directory (init.go); Schema is its JSON Schema, which
// editors associate with restls.yaml and serve --http serves.
//
// A later piece moves here what lsp holds for the project today (the
// registry per kind and its reload, API descriptions and their
// attachment, recorded answers and fixture naming): Project is the
// settings a snapshot is built from.
//
// It sits between config, openapi, hints and runtime below and lsp, web,
// check, scripttest and cmd/restls above: it imports config and leaves
// (input) only today, and never lsp, web, check, scripttest or cmd.
package workspace
