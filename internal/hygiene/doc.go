// Package hygiene holds no code: its tests check the repository rather
// than restls's behaviour. They build and run what the repository ships
// (the Dockerfile, make build and make dist, the Kubernetes manifests,
// the fuzz-smoke script) and hold the docs, and what files cite, to the
// code. They are apart from the behaviour tests (cmd/restls,
// internal/e2e) so that go test runs them beside those, and caches their
// result while the files they read do not change.
//
// Nothing imports it.
package hygiene
