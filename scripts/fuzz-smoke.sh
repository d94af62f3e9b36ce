#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# make fuzz-smoke: a short run of every fuzz target, one after another, for
# FUZZTIME executions each (the seed corpus also runs in make unit as
# ordinary tests). One line per target,
#
#   fuzz target 3 of 68: ./config FuzzFastYAML: ok, 10000 execs in 11 s
#
# and a target's whole output only when it fails: a finding prints the
# fuzzer's report (the failing input is written to the package's
# testdata/fuzz/FuzzXxx/, with the command that runs it again), the other
# targets still run, and the script exits 1.
#
# The targets are the `func FuzzXxx(f *testing.F)` of the test files this
# platform builds (go list), so listing them builds nothing. Each package's
# test binary is built once, instrumented for fuzzing (go test -c -fuzz),
# and run once per target in the package's directory with the fuzz cache
# go test would use ($GOCACHE/fuzz/<import path>); a target a binary does
# not hold fails.
#
# Arguments: the packages (default ./...). Environment: GO, FUZZTIME
# (10000x), FUZZMINIMIZE (10x; docs/decisions.md, "The fuzz smoke"), FUZZ
# (a regexp: only targets whose "PKG NAME" matches), FUZZTIMEOUT (per
# target, 10m).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10000x}
FUZZMINIMIZE=${FUZZMINIMIZE:-10x}
FUZZTIMEOUT=${FUZZTIMEOUT:-10m}
FUZZ=${FUZZ:-}
[ $# -gt 0 ] || set -- ./...

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cache=$("$GO" env GOCACHE)/fuzz
module=$("$GO" list -m) || exit 2

# PKG DIR NAME per target, in package order, names sorted in a package.
"$GO" list -f '{{.ImportPath}}{{"\t"}}{{.Dir}}{{"\t"}}{{join .TestGoFiles " "}} {{join .XTestGoFiles " "}}' "$@" >"$tmp/pkgs" || exit 2
while IFS=$'\t' read -r pkg dir files; do
  # Any top-level func named Fuzz*, whatever its parameter is called and
  # however its signature is wrapped: a target is never left out because
  # it was written differently.
  for f in $files; do
    sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$dir/$f"
  done | sort -u | while read -r name; do
    short=.${pkg#"$module"}
    if [ -z "$FUZZ" ] || printf '%s %s\n' "$short" "$name" | grep -Eq -- "$FUZZ"; then
      printf '%s\t%s\t%s\t%s\n' "$pkg" "$dir" "$name" "$short"
    fi
  done
done <"$tmp/pkgs" >"$tmp/targets"
total=$(wc -l <"$tmp/targets")
if [ "$total" -eq 0 ]; then
  echo "fuzz smoke: no fuzz target${FUZZ:+ matches FUZZ=$FUZZ}" >&2
  exit 2
fi
echo "fuzz smoke: $total targets, -fuzztime $FUZZTIME each"

n=0
failed=()
start=$(date +%s)
built=""
build_ok=0
while IFS=$'\t' read -r pkg dir name short; do
  n=$((n + 1))
  bin=$tmp/$(printf '%s' "$pkg" | tr '/' '_').test
  printf 'fuzz target %d of %d: %s %s: ' "$n" "$total" "$short" "$name"
  if [ "$built" != "$pkg" ]; then
    built=$pkg
    if "$GO" test -c -fuzz . -o "$bin" "$pkg" >"$tmp/build.log" 2>&1 && [ -x "$bin" ]; then
      build_ok=1
    else
      build_ok=0
      echo "FAIL (its package's test binary does not build):"
      sed 's/^/    /' "$tmp/build.log"
      failed+=("$short $name")
      continue
    fi
  fi
  if [ "$build_ok" -eq 0 ]; then
    echo "FAIL (its package's test binary does not build, above)"
    failed+=("$short $name")
    continue
  fi
  t0=$(date +%s)
  (cd "$dir" && "$bin" -test.run '^$' -test.fuzz "^$name\$" -test.fuzztime "$FUZZTIME" \
    -test.fuzzminimizetime "$FUZZMINIMIZE" -test.fuzzcachedir "$cache/$pkg" \
    -test.timeout "$FUZZTIMEOUT" -test.paniconexit0) </dev/null >"$tmp/run.log" 2>&1
  rc=$?
  secs=$(($(date +%s) - t0))
  # The fuzzer's last progress line: "fuzz: elapsed: 11s, execs: 10000 (...)".
  execs=$(sed -n 's/^fuzz: elapsed: [^,]*, execs: \([0-9]*\) .*/\1/p' "$tmp/run.log" | tail -n 1)
  if [ "$rc" -eq 0 ] && grep -q '^PASS$' "$tmp/run.log" && [ -n "$execs" ]; then
    echo "ok, $execs execs in $secs s"
  else
    echo "FAIL (exit status $rc, after $secs s):"
    sed 's/^/    /' "$tmp/run.log"
    failed+=("$short $name")
  fi
done <"$tmp/targets"

elapsed=$(($(date +%s) - start))
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz smoke: FAIL: ${#failed[@]} of $total targets failed in $((elapsed / 60)) min $((elapsed % 60)) s:"
  printf '  %s\n' "${failed[@]}"
  echo "A finding's input is in the package's testdata/fuzz/<target>/; go test -run '<target>/<file>' ./<package> runs it again."
  exit 1
fi
echo "fuzz smoke: ok, $total targets in $((elapsed / 60)) min $((elapsed % 60)) s"
