#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# make dist: the downloads of one release, in dist/:
#   restls-<version>-<target>.tar.gz (.zip for win32-x64): restls, README.md,
#     LICENSE, restls.spdx (an SPDX document naming the licence) and docs/
#     (README.md's links, and what `restls help` points at);
#   restls-<version>-<target>.vsix: the VS Code extension with that binary
#     at bin/<target>/restls[.exe] (docs/vscode.md, "Packaging");
#   restls-<version>.vsix: the universal extension, no binary (restls.path
#     or PATH);
#   SHA256SUMS over all of them (sha256sum -c SHA256SUMS checks them).
#
# Targets are VS Code's names (process.platform-process.arch); binaries are
# built with CGO_ENABLED=0 -trimpath, the profile cmd/restls/restls.pgo
# (profile-guided optimization) and the version and commit stamped.
# VERSION defaults to what make build stamps (scripts/version.sh: the tag
# on a tagged commit, else v<version of vscode-extension/package.json>
# -dev.<commit>), COMMIT to the checked-out commit (with -dirty for
# uncommitted changes). VERSION=v0.1.0 names a release explicitly.
# TARGETS (space-separated) builds a subset.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
GO=${GO:-go}

all_targets="linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64"
TARGETS=${TARGETS:-$all_targets}

VERSION=${VERSION:-$(scripts/version.sh)}
if [ -z "$VERSION" ]; then
  echo "scripts/dist.sh: no version: not a git checkout; give VERSION=v..." >&2
  exit 2
fi
if [ -z "${COMMIT:-}" ]; then
  COMMIT=$(git rev-parse HEAD)
  if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    COMMIT="$COMMIT-dirty"
  fi
fi
# Archive timestamps are the commit's, so two builds of one commit give
# the same archives.
epoch=$(git log -1 --format=%ct)
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)

goos_goarch() {
  case $1 in
    linux-x64) echo linux amd64 ;;
    linux-arm64) echo linux arm64 ;;
    darwin-x64) echo darwin amd64 ;;
    darwin-arm64) echo darwin arm64 ;;
    win32-x64) echo windows amd64 ;;
    *) echo "scripts/dist.sh: unknown target $1 (known: $all_targets)" >&2; return 1 ;;
  esac
}

spdx() { # name: a minimal SPDX 2.3 tag-value document for one download
  cat <<EOF
SPDXVersion: SPDX-2.3
DataLicense: CC0-1.0
SPDXID: SPDXRef-DOCUMENT
DocumentName: $1
DocumentNamespace: https://github.com/restls/restls/spdx/$1-$COMMIT
Creator: Tool: restls-scripts-dist.sh
Created: $created

PackageName: restls
SPDXID: SPDXRef-Package-restls
PackageVersion: $VERSION
PackageDownloadLocation: git+https://github.com/restls/restls@$COMMIT
FilesAnalyzed: false
PackageLicenseConcluded: Apache-2.0
PackageLicenseDeclared: Apache-2.0
PackageCopyrightText: NOASSERTION
Relationship: SPDXRef-DOCUMENT DESCRIBES SPDXRef-Package-restls
EOF
}

out=$root/dist
rm -rf "$out"
mkdir -p "$out/.build"
work=$out/.build
trap 'rm -rf "$work"' EXIT

# Binaries and archives.
for t in $TARGETS; do
  read -r goos goarch < <(goos_goarch "$t")
  exe=restls
  [ "$goos" = windows ] && exe=restls.exe
  name=restls-$VERSION-$t
  mkdir -p "$work/$name"
  echo "build $t ($goos/$goarch)"
  # -pgo: the profile of restls check on make bench-oxlint's corpus
  # (cmd/restls/restls.pgo, make pgo writes it; docs/ci.md "How fast").
  CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch "$GO" build -trimpath -pgo=cmd/restls/restls.pgo \
    -ldflags "-s -w -X main.version=$VERSION -X main.commit=$COMMIT" \
    -o "$work/$name/$exe" ./cmd/restls
  cp README.md LICENSE "$work/$name/"
  git ls-files -z docs | xargs -0 cp --parents -t "$work/$name/"
  spdx "$name" >"$work/$name/restls.spdx"
  find "$work/$name" -exec touch -d "@$epoch" {} +
  if [ "$goos" = windows ]; then
    (cd "$work" && rm -f "$out/$name.zip" && zip -qX -r "$out/$name.zip" "$name")
  else
    tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
      -cf - "$name" | gzip -n9 >"$out/$name.tar.gz"
  fi
done

# The extension: bundled once, then packaged per target from a staging
# copy of vscode-extension (so the source tree never holds a binary), with
# node_modules linked for vscode:prepublish's esbuild, and RESTLS_ROOT
# telling it where the schemas are.
ext=$root/vscode-extension
if [ ! -d "$ext/node_modules" ]; then
  (cd "$ext" && npm ci --no-audit --no-fund)
fi
stage=$work/vscode-extension
mkdir -p "$stage"
tar -C "$ext" --exclude=./node_modules --exclude=./bin --exclude=./out --exclude='*.vsix' -cf - . | tar -C "$stage" -xf -
ln -s "$ext/node_modules" "$stage/node_modules"
cp LICENSE "$stage/LICENSE"
# --no-rewrite-relative-links: README.md's images stay relative, shown from
# the .vsix itself (media/, packaged per .vscodeignore), not from a web
# address an offline machine cannot reach.
vsce() {
  (cd "$stage" && RESTLS_ROOT=$root npx --no-install vsce package --no-dependencies \
    --no-rewrite-relative-links "$@") >"$work/vsce.log" 2>&1 ||
    { cat "$work/vsce.log" >&2; return 1; }
}
for t in $TARGETS; do
  read -r goos _ < <(goos_goarch "$t")
  exe=restls
  [ "$goos" = windows ] && exe=restls.exe
  rm -rf "$stage/bin"
  mkdir -p "$stage/bin/$t"
  cp "$work/restls-$VERSION-$t/$exe" "$stage/bin/$t/$exe"
  echo "vsix $t"
  vsce --target "$t" -o "$out/restls-$VERSION-$t.vsix"
done
rm -rf "$stage/bin"
echo "vsix universal"
vsce -o "$out/restls-$VERSION.vsix"

shopt -s nullglob
(cd "$out" && sha256sum -- *.tar.gz *.zip *.vsix >SHA256SUMS)
echo "dist/:"
(cd "$out" && ls -l -- *.tar.gz *.zip *.vsix SHA256SUMS)
