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
//   - the one rule that picks an environment (environment.go: the name
//     asked, else --env or the file's defaultEnvironment, else none; an
//     unknown name an UnknownEnvironmentError listing the known ones),
//     the only reader of the file's environments (TestEnvironmentRule);
//   - Session, one per process (session.go): the registry of each
//     environment, the description and answer-schema stores with their
//     attachments, the recorded answers, the store its snapshots check
//     every dry run's answers with (Snapshot.CheckAnswers), reload with hooks the language server
//     subscribes to, the open documents' texts (overlay.go, read in
//     place of the disk by ReadFile) and the project indexes
//     (project_index.go, package workspace/index: one per root and
//     registry, its budget, brought current from the overlay, the files
//     watched or polled); restls check, mcp, the language server and web
//     all ask it;
//   - Snapshot, the immutable view one request takes (registry per kind,
//     kind map, descriptions, recorded answers, environment).
//
// It sits between config and openapi below and lsp, web, check,
// scripttest and cmd/restls above: it imports config, openapi,
// runtime/restclient (the call and fixture formats) and leaves (input)
// only, and never hints, lsp, web, check, scripttest or cmd.
package workspace
