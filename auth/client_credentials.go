package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

// ClientCredentialsJWT authorizes a service that acts as itself: the OAuth
// client credentials grant (MCP's OAuth client credentials extension,
// SEP-1046), with the client authenticated by a JWT it signs with its private
// key (private_key_jwt, RFC 7523 §2.2) rather than by a shared secret. Put a
// pointer to it in transport.StreamableHTTP.OAuthHandler:
//
//	t := transport.StreamableHTTP{
//		URL: "https://mcp.example.com/mcp",
//		OAuthHandler: &auth.ClientCredentialsJWT{
//			ClientID: "reports-service",
//			Key:      auth.SigningKey{File: "/etc/mcp/client-key.pem"},
//		},
//	}
//
// On a 401 it discovers the server's authorization server (RFC 9728, RFC
// 8414) and sends one token request: grant_type=client_credentials, the
// server's resource identifier (RFC 8707), the scopes, and a fresh assertion
// (issuer and subject ClientID, audience the authorization server's issuer,
// a minute of life, a unique jti). An expired token is replaced by running
// the grant again. A refusal fails the request with a [*TokenError]; nothing
// is retried. For a client secret instead of a key, go-sdk's
// extauth.ClientCredentialsHandler fits the same field.
//
// A ClientCredentialsJWT must not be copied after first use.
type ClientCredentialsJWT struct {
	// ClientID is the client's id at the authorization server. Required.
	ClientID string
	// Key signs the client assertions. Required.
	Key SigningKey
	// Scopes are requested with every token; empty means those of the
	// server's challenge, else all its metadata lists (scopes_supported).
	// A 403 insufficient_scope adds the scopes the server asks for.
	Scopes []string
	// HTTPClient sends the discovery and token requests; nil means a
	// client with http.DefaultTransport. A redirect to another origin
	// (scheme, host, port), or from https to http, is refused before its
	// own CheckRedirect runs: a token request carries the client's
	// credentials.
	HTTPClient *http.Client

	state grantState
}

var _ sdkauth.OAuthHandler = (*ClientCredentialsJWT)(nil)

// Check reports a configuration that cannot work, before any request;
// transport's StreamableHTTP.Open calls it.
func (c *ClientCredentialsJWT) Check() error {
	if c.ClientID == "" {
		return errors.New("auth: client credentials: empty ClientID")
	}
	if err := c.Key.check(); err != nil {
		return fmt.Errorf("auth: client credentials: %w", err)
	}
	return nil
}

// TokenSource returns the source of the current token, or nil before the
// first authorization.
func (c *ClientCredentialsJWT) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return c.state.tokenSource(), nil
}

// Authorize runs the grant for the server that answered resp (a 401, or a
// 403 asking for more scopes). It closes resp's body.
func (c *ClientCredentialsJWT) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if err := c.Check(); err != nil {
		closeBody(resp)
		return err
	}
	return c.state.authorize(ctx, "client credentials", c.HTTPClient, c.Scopes, req, resp, c.grant)
}

func (c *ClientCredentialsJWT) grant(ctx context.Context, env grantEnv, t *grantTarget) (*oauth2.Token, error) {
	if err := checkGrantSupported(t.meta, grantClientCredentials); err != nil {
		return nil, err
	}
	key := c.Key
	tok, err := requestToken(ctx, env.tokenClient, tokenRequest{
		endpoint: t.meta.TokenEndpoint,
		params:   url.Values{"grant_type": {grantClientCredentials}, "resource": {t.resource}},
		scopes:   t.scopes,
		auth:     clientAuth{id: c.ClientID, key: &key},
		meta:     t.meta,
		dpop:     env.dpop,
	})
	if err != nil {
		return nil, err
	}
	if err := checkAccessToken(tok, t.meta.TokenEndpoint, env.dpop); err != nil {
		return nil, err
	}
	return tok, nil
}

// String names the client and its key's source, never the key.
func (c *ClientCredentialsJWT) String() string {
	return redacted("ClientCredentialsJWT", "ClientID: "+c.ClientID, "Key: "+c.Key.String(),
		"Scopes: ["+strings.Join(c.Scopes, " ")+"]")
}

// GoString is String.
func (c *ClientCredentialsJWT) GoString() string { return c.String() }

// MarshalJSON encodes String.
func (c *ClientCredentialsJWT) MarshalJSON() ([]byte, error) { return json.Marshal(c.String()) }
