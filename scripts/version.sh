#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# The version make build and make dist stamp (restls version), from the
# checked-out commit: git describe's (the tag on a tagged commit,
# v0.1.0-3-g<sha>-dirty after one), or, while no v* tag exists,
# v<version of vscode-extension/package.json>-dev.<12 hex of the commit>:
# a semver pre-release, which the VS Code extension's version check
# accepts. A release built from an untagged commit is asked for by name:
# VERSION=v0.1.0 make dist. Prints nothing outside a git checkout.
cd "$(dirname "$0")/.." || exit 1
git describe --tags --match 'v*' --dirty 2>/dev/null && exit 0
c=$(git rev-parse --short=12 HEAD 2>/dev/null) || exit 0
v=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' vscode-extension/package.json)
echo "v$v-dev.$c"
