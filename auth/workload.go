package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

// WorkloadIdentity authorizes a workload with the JWT its platform issued it
// (MCP's workload identity federation extension, SEP-1933): a Kubernetes
// service account token, a SPIFFE JWT-SVID, a cloud's identity token. The JWT
// is presented as an RFC 7523 JWT bearer grant; there is no client secret,
// no key and no registration. Put a pointer to it in
// transport.StreamableHTTP.OAuthHandler:
//
//	t := transport.StreamableHTTP{
//		URL: "https://mcp.example.com/mcp",
//		OAuthHandler: &auth.WorkloadIdentity{
//			AssertionFile: "/var/run/secrets/tokens/mcp-token",
//		},
//	}
//
// On a 401 it discovers the server's authorization server and sends one
// token request: grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer, the
// assertion, the server's resource identifier and the scopes. The platform
// decides the JWT's audience; the authorization server judges it. A refusal
// (invalid_grant for an expired JWT or a wrong audience, invalid_scope,
// unauthorized_client) fails the request with a [*TokenError]: no retry, and
// no fallback to another grant. An expired access token is replaced by
// reading the assertion again and running the grant again.
//
// A WorkloadIdentity must not be copied after first use.
type WorkloadIdentity struct {
	// AssertionFile is a file holding the JWT, read at every grant, since
	// platforms rotate it in place.
	AssertionFile string
	// Assertion returns the JWT, for a platform that hands it out through an
	// API. Set exactly one of AssertionFile and Assertion.
	Assertion func(ctx context.Context) (string, error)
	// ClientID, if set, is sent as client_id, for an authorization server
	// that wants the workload to name a client; the extension needs none.
	ClientID string
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

var _ sdkauth.OAuthHandler = (*WorkloadIdentity)(nil)

// Check reports a configuration that cannot work, before any request;
// transport's StreamableHTTP.Open calls it.
func (w *WorkloadIdentity) Check() error {
	if (w.AssertionFile == "") == (w.Assertion == nil) {
		return errors.New("auth: workload identity: set exactly one of AssertionFile and Assertion")
	}
	return nil
}

// TokenSource returns the source of the current token, or nil before the
// first authorization.
func (w *WorkloadIdentity) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return w.state.tokenSource(), nil
}

// Authorize runs the grant for the server that answered resp. It closes
// resp's body.
func (w *WorkloadIdentity) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if err := w.Check(); err != nil {
		closeBody(resp)
		return err
	}
	return w.state.authorize(ctx, "workload identity", w.HTTPClient, w.Scopes, req, resp, w.grant)
}

func (w *WorkloadIdentity) grant(ctx context.Context, env grantEnv, t *grantTarget) (*oauth2.Token, error) {
	if err := checkGrantSupported(t.meta, grantJWTBearer); err != nil {
		return nil, err
	}
	assertion, err := w.assertion(ctx)
	if err != nil {
		return nil, err
	}
	tok, err := requestToken(ctx, env.tokenClient, tokenRequest{
		endpoint: t.meta.TokenEndpoint,
		params:   url.Values{"grant_type": {grantJWTBearer}, "assertion": {assertion}, "resource": {t.resource}},
		scopes:   t.scopes,
		auth:     clientAuth{id: w.ClientID},
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

// assertion reads the workload's JWT. Errors name the file, never the JWT.
func (w *WorkloadIdentity) assertion(ctx context.Context) (string, error) {
	var jwt string
	if w.AssertionFile != "" {
		b, err := os.ReadFile(w.AssertionFile)
		if err != nil {
			return "", fmt.Errorf("workload JWT: %w", err)
		}
		jwt = string(b)
	} else {
		s, err := w.Assertion(ctx)
		if err != nil {
			return "", fmt.Errorf("workload JWT: %w", err)
		}
		jwt = s
	}
	jwt = strings.TrimSpace(jwt)
	if jwt == "" {
		return "", errors.New("workload JWT: empty")
	}
	if strings.Count(jwt, ".") != 2 {
		return "", errors.New("workload JWT: not a compact JWT (three dot-separated parts)")
	}
	return jwt, nil
}

// String names where the JWT comes from, never the JWT.
func (w *WorkloadIdentity) String() string {
	from := "AssertionFile: " + w.AssertionFile
	if w.Assertion != nil {
		from = "Assertion: func"
	}
	return redacted("WorkloadIdentity", from, "ClientID: "+w.ClientID, "Scopes: ["+strings.Join(w.Scopes, " ")+"]")
}

// GoString is String.
func (w *WorkloadIdentity) GoString() string { return w.String() }

// MarshalJSON encodes String.
func (w *WorkloadIdentity) MarshalJSON() ([]byte, error) { return json.Marshal(w.String()) }
