// Package apicheck lists the public API of the mcpconnector module, so
// that a change to it shows in review the way Go's own api/go1.*.txt files
// show a change to the standard library.
//
// The listing has one line per exported item of every public package: the
// module's packages whose import path has no internal element and that are
// not under examples/, benchmarks/, conformance/, interop/ or a testdata
// directory, and the packages of each adapter module under adapters/. A
// line reads, for example,
//
//	pkg github.com/cuca-go/mcpconnector/plugin, func Connect(context.Context, transport.McpTransport, ...Option) (*McpPlugin, error)
//	pkg github.com/cuca-go/mcpconnector/plugin, method (*McpPlugin) Tools() []host.ToolDefinition
//	pkg github.com/cuca-go/mcpconnector/plugin, type Error struct, Kind Kind
//
// The listing is read from the source alone, with go/parser and go/ast and
// no type checking, so it works without building the packages: parameter
// names are dropped, methods of unexported types, unexported fields and
// methods promoted through embedding are not listed, and the only build
// constraint respected is a //go:build line naming the tag ignore.
//
// The listing checked in is api/mcpconnector.txt at the module root. The
// test TestPublicAPI fails when the tree's listing differs from it; after a
// change to the API made on purpose, rewrite it with
//
//	go test ./internal/apicheck -run TestPublicAPI -update
package apicheck
