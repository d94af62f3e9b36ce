// Package e2e holds no code: its tests drive restls end to end, the
// binary built once per test process (internal/restlstest) and run as its
// users run it: language-server sessions over stdio, the designer and
// hints API over HTTP (serve --http), and the commands on the command
// line. Tests of cmd/restls's own functions stay in cmd/restls; tests of
// the repository's files are in internal/hygiene. Apart, go test runs the
// three packages beside each other.
//
// Every test calls t.Parallel() unless a "Not in parallel" comment says
// why not (t.Setenv, a wall-time bound that neighbours would stretch).
//
// Nothing imports it.
package e2e
