package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cuca-go/mcpconnector/auth"
	"github.com/cuca-go/mcpconnector/transport"
)

// runClientCredentialsJWT connects as a service with the client credentials
// grant and private_key_jwt client authentication (RFC 7523): the suite
// hands over the client's private key as PEM, which goes to a file of its
// own (mode 0600) the way a deployment would mount it.
func runClientCredentialsJWT(ctx context.Context, env *scenarioEnv) error {
	id, pemKey := env.str("client_id"), env.str("private_key_pem")
	if id == "" || pemKey == "" {
		return errors.New("MCP_CONFORMANCE_CONTEXT lacks client_id or private_key_pem")
	}
	dir, err := os.MkdirTemp("", "mcp-conformance-key-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	keyFile := filepath.Join(dir, "client-key.pem")
	if err := os.WriteFile(keyFile, []byte(pemKey), 0o600); err != nil {
		return err
	}
	return env.callTestTool(ctx, transport.StreamableHTTP{OAuthHandler: &auth.ClientCredentialsJWT{
		ClientID: id,
		Key:      auth.SigningKey{File: keyFile, Algorithm: env.str("signing_algorithm")},
	}})
}

// runEnterprise connects through enterprise-managed authorization (SEP-990):
// the suite plays the user's single sign-on and hands over the ID token; the
// client exchanges it at the IdP for an ID-JAG and that for an access token
// at the MCP server's authorization server.
func runEnterprise(ctx context.Context, env *scenarioEnv) error {
	idToken := env.str("idp_id_token")
	return env.callTestTool(ctx, transport.StreamableHTTP{OAuthHandler: &auth.EnterpriseAuth{
		IDToken:      func(context.Context) (string, error) { return idToken, nil },
		IdPIssuer:    env.str("idp_issuer"),
		IdPClientID:  env.str("idp_client_id"),
		ClientID:     env.str("client_id"),
		ClientSecret: env.str("client_secret"),
	}})
}

// runWorkloadIdentity connects with the workload's platform-issued JWT
// (SEP-1933). The suite also hands over an expired and a wrongly addressed
// JWT; the unit tests of transport cover those, the scenario wants the valid
// one presented once.
func runWorkloadIdentity(ctx context.Context, env *scenarioEnv) error {
	jwt := env.str("valid_jwt")
	return env.callTestTool(ctx, transport.StreamableHTTP{OAuthHandler: &auth.WorkloadIdentity{
		Assertion: func(context.Context) (string, error) { return jwt, nil },
		ClientID:  env.str("client_id"),
	}})
}

// runDPoP connects through the authorization code flow with DPoP-bound
// tokens (SEP-1932, RFC 9449), with and without server nonces: go-sdk's
// handler makes its token requests through the DPoP's HTTP client, and the
// transport presents the token with a fresh proof on every request.
func runDPoP(ctx context.Context, env *scenarioEnv) error {
	dpop := &auth.DPoP{}
	handler, err := newOAuthHandler(env.context, dpop.HTTPClient(nil))
	if err != nil {
		return err
	}
	return env.callTestTool(ctx, transport.StreamableHTTP{OAuthHandler: handler, DPoP: dpop})
}

// str is a string of the suite's context, or "".
func (env *scenarioEnv) str(key string) string {
	s, _ := env.context[key].(string)
	return s
}

// callTestTool connects over tr and calls the suite's test-tool, which
// only an authorized client reaches.
func (env *scenarioEnv) callTestTool(ctx context.Context, tr transport.StreamableHTTP) error {
	p, err := env.connect(ctx, tr)
	if err != nil {
		return err
	}
	defer func() { _ = p.Close() }()
	if _, err := p.CallTool(ctx, "test-tool", nil).Await(ctx); err != nil {
		return fmt.Errorf("test-tool: %w", err)
	}
	return nil
}
