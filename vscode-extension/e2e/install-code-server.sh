#!/usr/bin/env bash
# Installs code-server (the VS Code build that runs in a browser) from npm
# into $1 for the end-to-end test, without any step that downloads a
# prebuilt binary: the packages are installed with --ignore-scripts, the
# native modules VS Code needs on Linux are rebuilt from source against the
# system Node headers, and Debian's ripgrep stands in for @vscode/ripgrep's
# download. Idempotent: a finished install is left alone.
#
# Needs (Debian): build-essential python3 pkg-config libkrb5-dev libx11-dev
# libxkbfile-dev libsecret-1-dev ripgrep, and Node 20.
set -euo pipefail

dest=${1:?usage: install-code-server.sh DIR}
# node-gyp would download Node's headers for the rebuilds; Debian's nodejs
# ships them under /usr/include/node, so point it there explicitly rather
# than rely on a user npmrc.
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/common.gypi ]; then
  export npm_config_nodedir=/usr
fi
version=${CODE_SERVER_VERSION:-4.100.3}
mkdir -p "$dest"
cd "$dest"
stamp=".installed-$version"
if [ -f "$stamp" ]; then
  echo "code-server $version already installed in $dest"
  exit 0
fi
if [ ! -f package.json ]; then
  echo '{"name":"restls-e2e-code-server","private":true}' > package.json
fi

echo "code-server $version: npm install --ignore-scripts"
npm install --no-save --no-audit --no-fund --ignore-scripts "code-server@$version"

cs=node_modules/code-server
vs=$cs/lib/vscode

# argon2 (password hashing in code-server itself) would download a prebuilt
# binding; build it from source instead.
echo "code-server: building argon2 from source"
npm_config_yes=true npm rebuild argon2 --build-from-source

# What code-server's postinstall.sh does, minus the downloads.
echo "code-server: VS Code dependencies"
(cd "$vs" && npm install --omit=dev --no-audit --no-fund --ignore-scripts)
echo "code-server: rebuilding native modules from source"
(cd "$vs" && npm_config_yes=true npm rebuild @parcel/watcher @vscode/spdlog kerberos native-watchdog node-pty @vscode/deviceid)
rg_dir=$vs/node_modules/@vscode/ripgrep/bin
mkdir -p "$rg_dir"
cp "$(command -v rg)" "$rg_dir/rg"
rm -rf "$vs/node_modules.asar"
ln -s node_modules "$vs/node_modules.asar"
(cd "$vs/bin/remote-cli" && ln -sf code-linux.sh code-server)
(cd "$vs/bin/helpers" && ln -sf browser-linux.sh browser.sh)
echo "code-server: built-in extension dependencies"
(cd "$vs/extensions" && npm install --omit=dev --no-audit --no-fund --ignore-scripts)

touch "$stamp"
echo "code-server $version installed in $dest"
