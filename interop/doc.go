// Package interop holds no code of its own: its tests run the client's
// core scenarios against real MCP servers written with three independent
// server SDKs, each over stdio and over Streamable HTTP:
//
//   - go-sdk (github.com/modelcontextprotocol/go-sdk v1.8.0), the SDK the
//     client is built on;
//   - mcp-go (github.com/mark3labs/mcp-go v1.2.1), a dependency of this
//     module's tests only;
//   - the TypeScript SDK v2 (npm @modelcontextprotocol/server 2.4.0), run by
//     the Node.js that package.json pins.
//
// Every server offers the same tools (tools_test.go says which). The Go
// servers run in the test binary, re-executed, for stdio and in this
// process behind a loopback listener for HTTP; the TypeScript server is
// ts/server.mjs, served with serveStdio, or with createMcpHandler behind
// node:http.
//
// TestInterop is the matrix; with MCPCONNECTOR_INTEROP_TABLE naming a file
// it writes the results there as a Markdown page, the one the docs hold:
//
//	MCPCONNECTOR_INTEROP_TABLE=$PWD/docs/interop-table.md go test -count=1 -run TestInterop ./interop/
//
// A cell an SDK cannot fill says why ("n/a") instead of passing silently.
// setup.sh installs the pinned Node.js and packages into interop/.cache
// with npm; the tests run it when the cache is missing. When Node.js cannot
// be had, the TypeScript rows say "not run" and why, and with CI=true the
// test fails.
//
// Beside the matrix: TestRejectedNotificationDoesNotEndTheHTTPSession
// (a server that refuses notifications fails no call and ends no session)
// and TestLegacyOnlyServerIsRefusedNamingTheRevision (a server that speaks
// only 2025 revisions is refused at Connect).
//
// realservers_test.go runs published servers as a user meets them: gopls
// v0.23.0's "gopls mcp" and the TypeScript SDK v1's Streamable HTTP server
// (server-everything's streamableHttp mode), each refused once, for good,
// with its answer quoted; dbhub (npm @bytebase/dbhub, pinned, on SQLite)
// started without a database, whose error keeps its ERROR line, and over
// HTTP killed and started again on the same port. setup.sh installs dbhub
// with the other npm packages, and gopls with "setup.sh gopls" (go
// install); where either cannot be had the test skips, and fails with
// CI=true.
//
// legacyservers_test.go starts the pinned servers that speak only
// revisions before 2026-07-28 (server-everything, server-filesystem and
// server-memory over stdio; ts/legacy.mjs, the TypeScript SDK v1 over
// Streamable HTTP with sessions and over HTTP+SSE; go-sdk v1.6.1's and
// mcp-go v0.58.0's everything examples, installed by "setup.sh
// legacy-go"; gopls), and counts what reached each. legacy_baseline_test.go
// runs go-sdk v1.8.0's own client against each (the table of
// docs/interoperability.md, "Older revisions"), and pins that the plugin
// refuses every one by default, initialize never sent.
//
// interop is a module of its own (github.com/cuca-go/mcpconnector/interop),
// nested in the main one, so that mcp-go and etcd's client stay out of the
// main module's go.mod; it also holds gridetcd, the grid against a real etcd.
// From the repository's root, in the workspace (go.work), go test ./interop/
// runs it; with GOWORK=off, cd interop && go test ./...
package interop
