#!/usr/bin/env bash
# The realworld figure of docs/interoperability.md: of the published
# servers that start offline and that setup.sh installs, how many start,
# list their tools and answer a call through examples/toolbox with
# "legacyFallback": true (examples/toolbox/testdata/realworld.json).
#
#   bash interop/realworld.sh      # from the repository's root or anywhere
#
# It installs what it needs with setup.sh (setup.sh, setup.sh gopls,
# setup.sh legacy-go), serves ts/legacy.mjs over Streamable HTTP and
# HTTP+SSE on free loopback ports, runs the toolbox once to list every
# server, then once per server with -call and one cheap call, and prints
# a line per server and the count. Exit status 1 unless every one answers.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$here"
node=$(bash setup.sh | tail -n 1)
bash setup.sh gopls >/dev/null
bash setup.sh legacy-go >/dev/null
cache=$here/.cache
export REALWORLD_CACHE=$cache REALWORLD_NODE=$node
work=$(mktemp -d)
export REALWORLD_DIR=$work
printf 'module example.com/m\n\ngo 1.26\n' >"$work/go.mod"
printf 'package m\n\n// Hello says hello.\nfunc Hello() string { return "hello" }\n' >"$work/m.go"
cp ts/legacy.mjs "$cache/legacy.mjs" # node resolves the SDK v1 from the cache
"$node" "$cache/legacy.mjs" http 0 >"$work/http.out" 2>&1 &
http_pid=$!
"$node" "$cache/legacy.mjs" sse 0 >"$work/sse.out" 2>&1 &
sse_pid=$!
trap 'kill $http_pid $sse_pid 2>/dev/null; wait $http_pid $sse_pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 600); do
  grep -q '^listening' "$work/http.out" && grep -q '^listening' "$work/sse.out" && break
  sleep 0.1
done
export REALWORLD_HTTP_URL=http://127.0.0.1:$(awk '/^listening/ {print $2; exit}' "$work/http.out")/mcp
export REALWORLD_SSE_URL=http://127.0.0.1:$(awk '/^listening/ {print $2; exit}' "$work/sse.out")/sse
(cd "$root" && go build -o "$work/toolbox" ./examples/toolbox)
config=$root/examples/toolbox/testdata/realworld.json

"$work/toolbox" -config "$config" | grep -v '^      ' | grep -E '^  [a-z_]+ ' || true

# server, tool, arguments: one cheap call each that needs no network.
calls=(
  "everything echo {\"message\":\"hi\"}"
  "filesystem list_allowed_directories {}"
  "memory read_graph {}"
  "ts_http echo {\"message\":\"hi\"}"
  "ts_sse echo {\"message\":\"hi\"}"
  "gosdk greet {\"name\":\"you\"}"
  "mcpgo echo {\"message\":\"hi\"}"
  "gopls go_workspace {}"
  "dbhub execute_sql {\"sql\":\"SELECT 1 AS one\"}"
  "onepassword password_generate {}"
)
ok=0
for c in "${calls[@]}"; do
  read -r server tool args <<<"$c"
  # -call exits 1 when the call fails or its result is a tool error.
  if out=$("$work/toolbox" -config "$config" -call "${server}__$tool" -args "$args" 2>&1); then
    ok=$((ok + 1))
    echo "answered  ${server}__$tool: $(sed -n '/^Called /{n;p;q}' <<<"$out" | cut -c1-80)"
  else
    echo "FAILED    ${server}__$tool: $(tail -n 3 <<<"$out" | tr '\n' ' ' | cut -c1-300)"
  fi
done
echo "$ok of ${#calls[@]} servers started, listed their tools and answered a call"
[ "$ok" -eq "${#calls[@]}" ]
