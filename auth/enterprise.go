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
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// EnterpriseAuth authorizes a user signed in to an enterprise identity
// provider without a consent screen per server (MCP's enterprise-managed
// authorization extension, SEP-990, an application of the Identity Assertion
// JWT Authorization Grant):
//
//  1. the user's ID token from the IdP's single sign-on (IDToken) is
//     exchanged at the IdP (RFC 8693 token exchange) for an ID-JAG, an
//     identity assertion addressed to the MCP server's authorization server,
//     which the IdP issues only if the enterprise's policy allows it;
//  2. the ID-JAG is presented to that authorization server as an RFC 7523
//     JWT bearer grant, with this client's credentials there, for an access
//     token.
//
// The MCP server's authorization server and resource identifier are
// discovered on its 401 (RFC 9728, RFC 8414); they are the token exchange's
// audience and resource. Put a pointer to it in transport.StreamableHTTP.OAuthHandler.
// Either step's refusal fails the request with a [*TokenError]; nothing is
// retried. go-sdk's extauth.EnterpriseHandler does the same with both
// servers configured by hand and the client secret always in the request
// body; this one discovers them and authenticates as the server lists.
//
// An EnterpriseAuth must not be copied after first use.
type EnterpriseAuth struct {
	// IDToken returns the signed-in user's OpenID Connect ID token, issued
	// by the IdP to IdPClientID. It is called at every authorization (and
	// when an access token expired); keep it fresh there. Required.
	IDToken func(ctx context.Context) (string, error)

	// IdPIssuer is the IdP's issuer URL; its metadata gives the token
	// endpoint. Set it or IdPTokenEndpoint.
	IdPIssuer string
	// IdPTokenEndpoint is the IdP's token endpoint, when it is known without
	// discovery. It wins over IdPIssuer.
	IdPTokenEndpoint string
	// IdPClientID is this client's id at the IdP. Required.
	IdPClientID string
	// IdPClientSecret, if set, authenticates this client at the IdP.
	IdPClientSecret string

	// ClientID is this client's id at the MCP server's authorization server
	// (a pre-registered id, or a client ID metadata document URL). Required.
	ClientID string
	// ClientSecret authenticates this client at the MCP server's
	// authorization server (client_secret_basic, or client_secret_post if
	// that is all the server lists).
	ClientSecret string
	// Key authenticates this client there with private_key_jwt instead of a
	// secret. Set at most one of ClientSecret and Key; neither means a
	// public client.
	Key *SigningKey

	// Scopes are requested at both steps; empty means those of the server's
	// challenge, else all its metadata lists (scopes_supported). A 403
	// insufficient_scope adds the scopes the server asks for.
	Scopes []string
	// HTTPClient sends the discovery, token exchange and token requests; nil
	// means a client with http.DefaultTransport. A redirect to another
	// origin (scheme, host, port), or from https to http, is refused before
	// its own CheckRedirect runs: a token request carries the client's
	// credentials.
	HTTPClient *http.Client

	state grantState
}

var _ sdkauth.OAuthHandler = (*EnterpriseAuth)(nil)

// Check reports a configuration that cannot work, before any request;
// transport's StreamableHTTP.Open calls it.
func (e *EnterpriseAuth) Check() error {
	var missing []string
	if e.IDToken == nil {
		missing = append(missing, "IDToken")
	}
	if e.IdPIssuer == "" && e.IdPTokenEndpoint == "" {
		missing = append(missing, "IdPIssuer or IdPTokenEndpoint")
	}
	if e.IdPClientID == "" {
		missing = append(missing, "IdPClientID")
	}
	if e.ClientID == "" {
		missing = append(missing, "ClientID")
	}
	if len(missing) > 0 {
		return fmt.Errorf("auth: enterprise authorization: missing %s", strings.Join(missing, ", "))
	}
	if e.Key != nil {
		if e.ClientSecret != "" {
			return errors.New("auth: enterprise authorization: set at most one of ClientSecret and Key")
		}
		if err := e.Key.check(); err != nil {
			return fmt.Errorf("auth: enterprise authorization: %w", err)
		}
	}
	return nil
}

// TokenSource returns the source of the current token, or nil before the
// first authorization.
func (e *EnterpriseAuth) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return e.state.tokenSource(), nil
}

// Authorize runs both steps for the server that answered resp. It closes
// resp's body.
func (e *EnterpriseAuth) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if err := e.Check(); err != nil {
		closeBody(resp)
		return err
	}
	return e.state.authorize(ctx, "enterprise authorization", e.HTTPClient, e.Scopes, req, resp, e.grant)
}

func (e *EnterpriseAuth) grant(ctx context.Context, env grantEnv, t *grantTarget) (*oauth2.Token, error) {
	if err := checkGrantSupported(t.meta, grantJWTBearer); err != nil {
		return nil, err
	}
	idJAG, err := e.exchange(ctx, env.client, t)
	if err != nil {
		return nil, err
	}
	tok, err := requestToken(ctx, env.tokenClient, tokenRequest{
		endpoint: t.meta.TokenEndpoint,
		params:   url.Values{"grant_type": {grantJWTBearer}, "assertion": {idJAG}, "resource": {t.resource}},
		scopes:   t.scopes,
		auth:     clientAuth{id: e.ClientID, secret: e.ClientSecret, key: e.Key},
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

// exchange trades the user's ID token for an ID-JAG addressed to t's
// authorization server (step 1). The IdP binds nothing, so its requests
// carry no DPoP proof.
func (e *EnterpriseAuth) exchange(ctx context.Context, client *http.Client, t *grantTarget) (string, error) {
	endpoint := e.IdPTokenEndpoint
	var idpMeta *oauthex.AuthServerMeta
	if endpoint == "" {
		m, err := fetchAuthServerMeta(ctx, client, e.IdPIssuer)
		if err != nil {
			return "", fmt.Errorf("IdP: %w", err)
		}
		idpMeta, endpoint = m, m.TokenEndpoint
	} else if err := httpsOrLoopback(endpoint); err != nil {
		return "", fmt.Errorf("IdP token endpoint %q: %w", endpoint, err)
	}
	idToken, err := e.IDToken(ctx)
	if err != nil {
		return "", fmt.Errorf("ID token: %w", err)
	}
	if idToken == "" {
		return "", errors.New("ID token: empty")
	}
	tok, err := requestToken(ctx, client, tokenRequest{
		endpoint: endpoint,
		params: url.Values{
			"grant_type":           {oauthex.GrantTypeTokenExchange},
			"requested_token_type": {oauthex.TokenTypeIDJAG},
			"audience":             {t.meta.Issuer},
			"resource":             {t.resource},
			"subject_token":        {idToken},
			"subject_token_type":   {oauthex.TokenTypeIDToken},
		},
		scopes: t.scopes,
		auth:   clientAuth{id: e.IdPClientID, secret: e.IdPClientSecret},
		meta:   idpMeta,
	})
	if err != nil {
		return "", err
	}
	if issued, _ := tok.Extra("issued_token_type").(string); issued != oauthex.TokenTypeIDJAG {
		return "", fmt.Errorf("%w (%s): issued_token_type %q, not an ID-JAG", ErrBadTokenResponse, endpoint, truncate(issued, 80))
	}
	return tok.AccessToken, nil
}

// String names the parties and clients, never a token or secret.
func (e *EnterpriseAuth) String() string {
	idp := e.IdPTokenEndpoint
	if idp == "" {
		idp = e.IdPIssuer
	}
	clientAuth := "none"
	switch {
	case e.Key != nil:
		clientAuth = e.Key.String()
	case e.ClientSecret != "":
		clientAuth = "secret"
	}
	return redacted("EnterpriseAuth", "IdP: "+idp, "IdPClientID: "+e.IdPClientID, "ClientID: "+e.ClientID,
		"ClientAuth: "+clientAuth, "Scopes: ["+strings.Join(e.Scopes, " ")+"]")
}

// GoString is String.
func (e *EnterpriseAuth) GoString() string { return e.String() }

// MarshalJSON encodes String.
func (e *EnterpriseAuth) MarshalJSON() ([]byte, error) { return json.Marshal(e.String()) }
