// Package benchmarks measures what the actor design costs a tool call, side
// by side with its floors, and reports it as ratios from one run: the
// machines it runs on are shared and noisy, so absolute times vary while the
// ratios hold.
//
// # What is measured
//
//   - pass-through: [plugin.McpPlugin.OnStreamChunk] on a chunk with no tool
//     call and on one naming an unknown tool (target: under 100 ns, 0 allocs);
//   - hook call: OnStreamChunk with one "add" call through the connection
//     actor ([PluginHook]), against the same call made directly on a go-sdk
//     ClientSession ([GoSDKDirect], the floor for the transport) and against
//     a bare JSON-RPC echo ([RawPipe], [RawHTTP], the physical floor), over
//     stdio and over loopback Streamable HTTP (targets: over stdio, p50 at
//     most 1.05x go-sdk direct on its CommandTransport with fewer
//     allocations and bytes per call; over HTTP, p50 within 3% and 15
//     allocations of go-sdk direct); over stdio also the plugin without its
//     supervising parent, which prices that hop, a go-sdk session on
//     this module's stdio connection, which prices the connection alone,
//     the plugin with tools/call on the connection's own path
//     (the default, [SubjectPluginDirect]; the stdio plugin hook rows keep
//     ClientSession.CallTool with transport.Stdio.DisableDirectCalls) and
//     mark3labs/mcp-go's client ([MCPGoDirect]) as a peer beside go-sdk
//     direct (targets of the direct path: p50, p99 and CPU per call below
//     both peers, at most 16 KiB per call, and with 16 callers of the
//     instant tool at least mcp-go's calls/s);
//   - throughput with 1, 4, 16 and 64 concurrent callers on one plugin, for a
//     tool that answers at once and one that waits 20 ms, against a model of
//     the original design ([OneWorker]: one worker serving calls one at a
//     time from an unbounded queue) and against go-sdk called directly from
//     the same goroutines (target with the 20 ms tool and 16 callers: 12x the
//     one-worker model and 95% of go-sdk direct);
//   - connect time (spawn or dial, server/discover, every tools/list page) and
//     the heap, stacks and goroutines each idle connection holds ([Idle];
//     targets over stdio: at most 50 KiB, and at most go-sdk direct's bytes
//     and goroutines + 10%);
//   - connect with tools/list over 1,000 tools in 10 pages;
//   - each layer beside the one below: the stdio hook call with tracing on,
//     a toolbox of 10 servers × 50 tools against one plugin, a hook call
//     through a cluster grain on another member against a local plugin;
//   - one model turn through [client.Client], streamed by a scripted
//     endpoint on loopback ([ScriptedTurn], [Turn]), asking for 4 calls of a
//     100 ms tool against a turn of 1 call (target: at most 1.2x, which only
//     calls run together can meet);
//   - outages ([ScenarioOutageHTTP], [ScenarioOutageStdio]): a real server
//     away for 10 s and for 60 s ([Config.Outages]) while a caller calls
//     every [OutagePoll]: dbhub over HTTP (the npm package that
//     interop/package.json pins; interop/setup.sh installs it) killed and
//     started again on the same port, and the stdio test server killed
//     while its command exits 1; the row is the time from the return to
//     the first good call ([Outage]; targets: within 3 s after 10 s away,
//     within 10 s after 60 s).
//
// Every server runs in a child process, so allocation counts and CPU time
// are the client's alone: [testserver.RunBenchIfChild] must run first in
// main or TestMain. Allocations are counted process-wide with
// runtime.MemStats and CPU time with getrusage, so both include go-sdk's and
// protoactor's background goroutines that serve the call. Subjects are
// interleaved in rotating rounds ([Interleave], [ThroughputInterleaved]) so
// that load from elsewhere on a shared machine weighs on all of them alike.
//
// # Running
//
//	go run ./benchmarks/report                            # full run, about 7 minutes (3 of outages): table on stdout, docs/benchmarks-table.md, benchmarks/out/report.{md,svg}
//	go run ./benchmarks/report -svg benchmarks/report.svg # also refresh the committed chart
//	go run ./benchmarks/report -quick                     # smoke test, seconds
//	go run ./benchmarks/report -only 'hook call, stdio;throughput, instant tool, stdio' # some scenarios alone
//	go test ./benchmarks -run '^$' -bench . -benchtime 200x
//
// A full run writes docs/benchmarks-table.md, the one place the measured
// figures live; benchmarks/out is not committed; benchmarks/report.svg is
// the chart of the run that page holds.
//
// This package is a module of its own (github.com/cuca-go/mcpconnector/benchmarks),
// nested in the main one, so that mcp-go and tiktoken stay out of the main
// module's go.mod. The commands above run from the repository's root in the
// workspace (go.work); with GOWORK=off, run them in benchmarks/
// (cd benchmarks && go run ./report -quick). The framework adapters'
// benchmarks are each adapter module's own (BenchmarkToolCall in
// adapters/*/bench_test.go, measured by internal/fixture/agenttest), so
// that no adapter requires this module; docs/adapters.md holds their
// figures.
//
// # Profiling
//
// The go test benchmarks are where profiles come from, one subject at a time:
//
//	go test ./benchmarks -run '^$' -bench 'HookCall/stdio/plugin' -benchtime 5000x -cpuprofile cpu.out -o bench.test
//	go tool pprof -top bench.test cpu.out
//	go test ./benchmarks -run '^$' -bench 'HookCall/http/(plugin|gosdk)' -benchtime 2000x -memprofile mem.out -memprofilerate 1
//
// Comparing the allocation profiles of BenchmarkHookCall/*/plugin and
// BenchmarkHookCall/*/gosdk with pprof -diff_base shows exactly what the
// plugin, the actor and protoactor add to a call.
package benchmarks
