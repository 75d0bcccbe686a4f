// Package interop holds no code of its own: its tests run the client
// against real MCP servers written with server SDKs other than the one it is
// built on, and against the misbehaviours such servers show in the field: a
// notification the server refuses must fail nothing else.
package interop
