// Command client is the client under test when the official MCP conformance
// suite (npm package @modelcontextprotocol/conformance) checks this module.
//
// The suite starts a test server per scenario and runs
//
//	client <server-url>
//
// with the scenario's name in MCP_CONFORMANCE_SCENARIO and, for some
// scenarios, a JSON object of extra data in MCP_CONFORMANCE_CONTEXT. The
// command drives the scenario through the plugin's public API only:
// [plugin.Connect] with a [transport.StreamableHTTP], [plugin.McpPlugin.Tools],
// [plugin.McpPlugin.CallTool] and the [plugin.McpPlugin.OnStreamChunk] hook,
// with [transport.StreamableHTTP.OAuthHandler] for the auth/* scenarios (go-sdk's
// handlers, and this module's [auth.ClientCredentialsJWT],
// [auth.EnterpriseAuth] and [auth.WorkloadIdentity] for the authorization
// extensions), [transport.StreamableHTTP.DPoP] with an [auth.DPoP] for auth/dpop*,
// and [plugin.WithInputRequired] for SEP-2322. It exits 1 when the scenario
// could not be driven; whether the client behaved is for the suite to judge.
//
// conformance/run.sh installs the pinned suite, builds this command and runs
// every scenario that MCP 2026-07-28 requires of a client.
package main
