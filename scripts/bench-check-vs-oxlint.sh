#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# make bench-oxlint: restls check and oxlint with no-undef side by side on
# the same 10,000 generated scripts (8 calls each, 500 services; the corpus
# of writeCheckCorpus in cmd/restls/check_oxlint_bench_test.go, the same
# bytes on every machine). Issue 34's acceptance: restls check takes at
# most oxlint's wall time. It prints, per run of the benchmark,
#
#   BenchmarkCheckVsOxlint-2  10  ...  0.61 oxlint-s  0.94 ratio  0.57 restls-s
#
# the median wall seconds of each tool and their ratio (restls over
# oxlint), both timed one after the other in every iteration so they see
# the same load on a shared machine; uptime before and after says what
# that load was.
#
# oxlint comes from npm: OXLINT_VERSION (default the newest release that
# runs on Node 20) is installed under a temporary directory, never into
# the repository, and removed afterwards. RESTLS_OXLINT=PATH uses an
# oxlint already installed instead; RESTLS_BENCH_RESTLS=PATH times another
# restls build (an older one, for before and after) instead of the one
# built from the working tree. BENCHTIME (default 10x) is go test's
# -benchtime, COUNT (default 1) its -count.
set -euo pipefail

GO=${GO:-go}
OXLINT_VERSION=${OXLINT_VERSION:-1.94.0}
BENCHTIME=${BENCHTIME:-10x}
COUNT=${COUNT:-1}
root=$(cd "$(dirname "$0")/.." && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${RESTLS_OXLINT:-}" ]; then
  echo "installing oxlint@$OXLINT_VERSION under $tmp"
  npm install --prefix "$tmp/oxlint" --no-save --no-audit --no-fund --loglevel=error "oxlint@$OXLINT_VERSION" >/dev/null
  RESTLS_OXLINT=$tmp/oxlint/node_modules/.bin/oxlint
fi
export RESTLS_OXLINT
echo "oxlint: $("$RESTLS_OXLINT" --version)"
echo "load before: $(uptime)"
cd "$root"
"$GO" test -run '^$' -bench 'CheckVsOxlint$' -benchtime "$BENCHTIME" -count "$COUNT" ./cmd/restls
echo "load after: $(uptime)"
