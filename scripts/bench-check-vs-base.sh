#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# make bench-base: restls check as built from this tree and as built from
# BASE (default 3c62799, the commit before the answer types of issue 38),
# run for run on the same 10,000 generated scripts (BenchmarkCheckVsBase
# in cmd/restls/check_base_bench_test.go): without descriptions, and with
# an OpenAPI description attached to every service. Issue 38's bound:
# cpu-ratio (this build's median CPU seconds over the base's) at most 1.2.
#
# BASE is checked out in a temporary git worktree, built, and removed
# afterwards. BENCHTIME (default 5x) is go test's -benchtime, COUNT
# (default 1) its -count; uptime before and after says what the load was.
set -euo pipefail

GO=${GO:-go}
BASE=${BASE:-3c62799}
BENCHTIME=${BENCHTIME:-5x}
COUNT=${COUNT:-1}
root=$(cd "$(dirname "$0")/.." && pwd)

tmp=$(mktemp -d)
cleanup() {
  git -C "$root" worktree remove --force "$tmp/base" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
git -C "$root" worktree add --detach "$tmp/base" "$BASE" >/dev/null
(cd "$tmp/base" && CGO_ENABLED=0 "$GO" build -trimpath -o "$tmp/restls-base" ./cmd/restls)
export RESTLS_BENCH_BASE=$tmp/restls-base
echo "base: $BASE ($(git -C "$root" log -1 --format=%h "$BASE"))"
echo "load before: $(uptime)"
cd "$root"
"$GO" test -run '^$' -bench 'CheckVsBase$' -benchtime "$BENCHTIME" -count "$COUNT" ./cmd/restls
echo "load after: $(uptime)"
