#!/usr/bin/env bash
# Each framework adapter as a user installs it. For each adapters/*/: its
# go.mod may replace the main module (../..) and nothing else; then a module
# of a user's, in a temporary directory outside the repository and with no
# workspace (GOWORK=off), requires the main module and that adapter, replaces
# those two alone with this checkout (as a user's clone of both would),
# imports the adapter in its main.go, and must pass go mod tidy, go build and
# go list -m all.
# Whatever else the adapter's go.mod requires must be a module a user can
# fetch: a module of this repository's that only its developers run
# (benchmarks, examples, interop) would fail the tidy as "not available".
#
# bash .ci/consumers.sh              # every adapter
# bash .ci/consumers.sh eino openai  # some
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export GOWORK=off
main=$(go list -m)

adapters=("$@")
if [ ${#adapters[@]} -eq 0 ]; then
  for mod in adapters/*/go.mod; do adapters+=("$(basename "$(dirname "$mod")")"); done
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=()
for name in "${adapters[@]}"; do
  dir=$root/adapters/$name
  echo "-- adapters/$name"
  ok=true
  # The adapter's go.mod: one replace, the main module's, to ../.. .
  replaces=$(cd "$dir" && go list -m -f '{{if .Replace}}{{.Path}} => {{.Replace.Path}}{{end}}' all | sed '/^$/d')
  if [ "$replaces" != "$main => ../.." ]; then
    echo "adapters/$name/go.mod replaces more than the main module with ../..:"
    echo "$replaces"
    ok=false
  fi
  mod=$(cd "$dir" && go list -m)
  pkg=$(cd "$dir" && go list -f '{{.Name}}' .)
  c=$tmp/$name
  mkdir -p "$c"
  cat >"$c/go.mod" <<EOF
module example.com/consumer

go $(cd "$dir" && go mod edit -json | sed -n 's/^\t"Go": "\(.*\)",$/\1/p')

require (
	$main v0.0.0
	$mod v0.0.0
)

replace (
	$main => $root
	$mod => $dir
)
EOF
  cat >"$c/main.go" <<EOF
// Command consumer uses $pkg as a user's program would.
package main

import (
	"fmt"

	$pkg "$mod"
	"$main/plugin"
	"$main/toolbox"
)

// The two sources every adapter takes, as they are.
var (
	_ $pkg.Source = (*toolbox.Toolbox)(nil)
	_ $pkg.Source = (*plugin.McpPlugin)(nil)
)

func main() { fmt.Printf("%T\n", $pkg.Tools) }
EOF
  # go list -m all loads the whole module graph, as go get -u, gopls and
  # go mod graph's readers do: a requirement no one can fetch fails it even
  # where tidy and build get by without that module's go.mod.
  if ! (cd "$c" && go mod tidy && go build -o /dev/null . && go list -m all >/dev/null); then
    echo "adapters/$name: a user's module that requires it does not tidy, build or load its module graph (above)"
    ok=false
  fi
  $ok || failed+=("$name")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "adapters a user cannot install: ${failed[*]}"
  exit 1
fi
echo "every adapter installs: ${adapters[*]}"
