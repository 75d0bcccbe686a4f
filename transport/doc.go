// Package transport says which MCP server to reach and how: a child process
// over stdio ([Stdio]), a Streamable HTTP endpoint ([StreamableHTTP]), or,
// through the older revisions' bridge only, an HTTP+SSE endpoint ([SSE]).
//
// Each value implements [McpTransport]. Open turns it into a go-sdk
// mcp.Transport for one connection attempt; a reconnection opens it again.
// A user builds a value and gives it to plugin.Connect (or to the actors'
// ConnectionConfig); the rest of the package is how Open does it.
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
//	h, err := sdkauth.NewAuthorizationCodeHandler(&sdkauth.AuthorizationCodeHandlerConfig{...})
//	t := transport.StreamableHTTP{URL: "https://example.com/mcp", OAuthHandler: h}
//	t := transport.StreamableHTTP{URL: "https://example.com/mcp", BearerToken: token}
//
// (sdkauth is go-sdk's auth package.) The handlers of package auth
// (auth.ClientCredentialsJWT, auth.WorkloadIdentity, auth.EnterpriseAuth)
// go in OAuthHandler too, and auth.DPoP in [StreamableHTTP.DPoP]; package
// auth says what each does. OAuthHandler is this package's one hook for
// authorization: Open runs a handler's Check, if it has one, before the
// first request.
//
// # Stdio children
//
// The command runs without a shell: Args are passed to it as they are and
// never interpreted. The child sees only [DefaultEnv] (a few variables copied
// from this process, see there) plus Env. Its stderr is logged line by line at
// info level, and its last lines are kept ([Stdio.StderrLines]) so that an
// error can say why the server died.
//
// The connection under go-sdk's session is this package's own. It reads one
// JSON-RPC message per line; a line that is none (a banner, a debug line,
// partial JSON, JSON that is not JSON-RPC) is skipped and counted, warned of
// at most once a second without its bytes, and the session goes on. A line
// over [MaxMessageBytes] is dropped as it streams; when its first bytes name
// the id of a call, that call fails with [ErrMessageTooLarge].
//
// On Linux, macOS and FreeBSD the child leads a process group of its own.
// Closing the connection closes its stdin, waits TerminateTimeout for it to
// exit, then sends SIGTERM to the group, and finally SIGKILL; once it has
// exited, what is left of its group (a wrapper's background job, a helper
// it forked) gets SIGTERM, then SIGKILL, so that nothing it started
// outlives it, unless it left the group on purpose (setsid).
//
// On Windows the child is put in a Job Object of its own as it starts, and
// what it starts joins the job. Closing the connection closes its stdin,
// waits twice TerminateTimeout (Windows has no SIGTERM), then terminates
// the whole job; once the child has exited, what is left of the job is
// terminated too, and the job, made to kill what it holds when it is
// closed, goes with the connection (or with this process). A child's exit
// reads "exit status N" as on Unix; a terminated child's is "exit status 1".
//
// How each system reads: on Linux one goroutine of the process reads the
// stderr of every child (epoll), elsewhere each child's stderr has a
// goroutine of its own; on Unix a connection waiting for its server holds
// no read buffer (the runtime's poller says when the pipe is readable), on
// Windows it keeps its buffer. docs/platforms.md has the table.
//
// # Direct tool calls
//
// The transports Open returns run tools/call and resources/read on a path
// of their own beneath go-sdk's session: over stdio on
// the connection above, over Streamable HTTP as a POST with go-sdk's client
// and headers. That path is package internal/core/directcall's, which
// decodes the result into the one go-sdk would give. The session keeps
// everything else, and any call or read the path leaves to it.
// DisableDirectCalls on [Stdio] or [StreamableHTTP], or
// MCPCONNECTOR_DIRECT_CALLS=0 in the environment, sends every call and
// read through go-sdk's ClientSession instead. Over Streamable HTTP the direct
// path may re-send, once and with a new id, a call whose answer's stream
// was cut before the answer, for the tools its caller says may run again
// (the plugin's WithRetryIdempotent).
package transport
