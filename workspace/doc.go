// Package workspace is the project as every surface sees it: what the
// language server, restls check, test, run and services, and the designer
// backend agree a project is. gopls keeps this in its cache package
// (session, view, snapshot) under every feature; restls keeps it here.
//
// It owns:
//   - the project file, restls.yaml (project.go): found by walking up from
//     a script, a test file or the working directory to the repository
//     root (FindProject); decoded with input's budgeted YAML, every unknown
//     key a diagnostic with its line, column and the nearest known key
//     (keys.go); Init writes a first one (init.go); Schema is its JSON
//     Schema;
//   - the registry of a set of configuration sources and its reload when
//     the files change (registry.go);
//   - the API descriptions, loaded once each in the background
//     (Descriptions), attached to a registry's services (Attachments), the
//     problems of their files (DescriptionProblems);
//   - fixture naming and the recorded answers beside scripts
//     (fixtures.go: MockSuffixes, MockFileBeside, FixtureRoot, Recorded);
//   - answers held to the descriptions, the one check restls run, test,
//     check and the editor share (contract.go: CheckCall, CheckAnswer),
//     fixtures checked against them (fixture_check.go: CheckFixtures)
//     and built from them (fixture_generate.go: FixtureFor, AddFixtures),
//     with the answers' schemas in a store of their own
//     (NewAnswerDescriptions);
//   - path display for clients shown other paths (PathDisplay);
//   - Snapshot, the immutable view one request takes (registry per kind,
//     kind map, descriptions, recorded answers), and Workspace, from which
//     a command such as restls check takes one after waiting for the
//     descriptions it needs.
//
// It sits between config and openapi below and lsp, web, check,
// scripttest and cmd/restls above: it imports config, openapi,
// runtime/restclient (the call and fixture formats) and leaves (input)
// only, and never hints, lsp, web, check, scripttest or cmd.
package workspace
