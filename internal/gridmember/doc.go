// Package gridmember runs one member of a protoactor cluster that serves
// the MCP connection grains of an mcp.json, on loopback with the
// automanaged membership provider: the member process of the grid tests,
// benchmarks and examples/cluster.
package gridmember
