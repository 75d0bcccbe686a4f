// Package transport says which MCP server to reach and how: a child process
// over stdio ([Stdio]), a Streamable HTTP endpoint ([StreamableHTTP]), or a
// WebSocket URL ([WebSocket], which is not connectable).
//
// Each value implements [McpTransport]. Open turns it into a go-sdk
// mcp.Transport for one connection attempt; a reconnection opens it again.
//
//	t := transport.NewStdio("github-mcp-server", "stdio")
//	t := transport.StreamableHTTP{URL: "http://127.0.0.1:8080/mcp"}
//
// # Authorization
//
// A remote server that requires OAuth gets an OAuthHandler, usually go-sdk's
// authorization code handler (PKCE, client registration, scope step-up and
// token refresh); a token obtained elsewhere goes in BearerToken:
//
//	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{...})
//	t := transport.StreamableHTTP{URL: "https://example.com/mcp", OAuthHandler: h}
//	t := transport.StreamableHTTP{URL: "https://example.com/mcp", BearerToken: token}
//
// This package's handlers need no browser and go in OAuthHandler too:
// [ClientCredentialsJWT] (a service with a private key), [WorkloadIdentity]
// (a workload with its platform's JWT) and [EnterpriseAuth] (a user signed
// in to an enterprise IdP). [DPoP] binds the tokens of any handler to a key
// of the client's. Keys come from a PEM file or a crypto.Signer
// ([SigningKey]) and appear in no log or error.
//
// # Stdio children
//
// The command runs without a shell: Args are passed to it as they are and
// never interpreted. The child sees only [DefaultEnv] (a few variables copied
// from this process, see there) plus Env. Its stderr is logged line by line at
// info level, and its last lines are kept (see [StderrTail]) so that an error
// can say why the server died. Closing the connection closes the child's
// stdin, waits for it to exit, then sends SIGTERM and finally SIGKILL.
package transport
