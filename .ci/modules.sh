# The repository's Go modules, for .ci/run and .ci/test (sourced): the main
# module; the modules nested in it that only its developers run (benchmarks,
# examples, interop), which keep what they alone need (mcp-go, tiktoken,
# etcd's client, the stdout trace exporter) out of the main module's go.mod;
# and each framework adapter under adapters/. Each is checked on its own
# go.mod (GOWORK=off), as its users build it.
modules=(. benchmarks examples interop)
for mod in adapters/*/go.mod; do
  modules+=("$(dirname "$mod")")
done
