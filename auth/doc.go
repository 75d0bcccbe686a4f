// Package auth authorizes an MCP client at a protected server without a
// browser: OAuth grants for machines, DPoP-bound tokens, and the keys they
// are signed with. Each handler is a go-sdk auth.OAuthHandler, so it goes in
// transport.StreamableHTTP's OAuthHandler:
//
//	t := transport.StreamableHTTP{
//		URL: "https://mcp.example.com/mcp",
//		OAuthHandler: &auth.ClientCredentialsJWT{
//			ClientID: "reports-service",
//			Key:      auth.SigningKey{File: "/etc/mcp/client-key.pem"},
//		},
//		DPoP: &auth.DPoP{},
//	}
//
// On a 401 a handler discovers the server's authorization server (RFC 9728,
// RFC 8414), runs its grant once, and runs it again when the token expires;
// a refusal is final until the next 401 and surfaces as a [*TokenError].
// A user who signs in with a browser needs go-sdk's authorization code
// handler instead, which goes in the same field.
//
// This package imports nothing of this module; transport imports it.
//
// # Sections
//
//   - Grants: [ClientCredentialsJWT] (a service with a private key),
//     [WorkloadIdentity] (a workload with its platform's JWT),
//     [EnterpriseAuth] (a user signed in to an enterprise IdP).
//   - Proof of possession: [DPoP], [DPoP.HTTPClient], [DPoP.Bind].
//   - Keys: [SigningKey], from a PEM file or a crypto.Signer; no key or
//     secret appears in a log, an error or a String form.
//   - Errors: [TokenError], [ErrBadTokenResponse], [ErrDPoPNonce],
//     [ErrDPoPProofRefused].
package auth
