package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/cuca-go/mcpconnector/transport"
)

// authScenarios are the suite's OAuth client scenarios this command drives
// with go-sdk's authorization code handler.
var authScenarios = []string{
	"auth/metadata-default",
	"auth/metadata-var1",
	"auth/metadata-var2",
	"auth/metadata-var3",
	"auth/basic-cimd",
	"auth/scope-from-www-authenticate",
	"auth/scope-from-scopes-supported",
	"auth/scope-omitted-when-undefined",
	"auth/scope-step-up",
	"auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic",
	"auth/token-endpoint-auth-post",
	"auth/token-endpoint-auth-none",
	"auth/pre-registration",
	"auth/resource-mismatch",
	"auth/offline-access-scope",
	"auth/offline-access-not-supported",
	"auth/authorization-server-migration",
	"auth/iss-supported",
	"auth/iss-not-advertised",
	"auth/iss-supported-missing",
	"auth/iss-wrong-issuer",
	"auth/iss-unexpected",
	"auth/iss-normalized",
	"auth/metadata-issuer-mismatch",
}

// redirectURL is where the suite's authorization server sends the code.
// Nothing listens there: fetchCode reads the redirect instead of following
// it, as a desktop client's loopback listener would receive it.
const redirectURL = "http://localhost:3000/callback"

// clientMetadataURL is the client ID metadata document the suite's
// authorization server accepts without fetching it.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// runClientCredentials connects as a service with the client credentials
// grant (an unscored extension scenario) through go-sdk's extauth handler:
// any sdkauth.OAuthHandler plugs into transport.StreamableHTTP.
func runClientCredentials(ctx context.Context, env *scenarioEnv) error {
	id, _ := env.context["client_id"].(string)
	secret, _ := env.context["client_secret"].(string)
	handler, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
		Credentials: &oauthex.ClientCredentials{ClientID: id, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: secret}},
	})
	if err != nil {
		return fmt.Errorf("oauth handler: %w", err)
	}
	p, err := env.connect(ctx, transport.StreamableHTTP{OAuthHandler: handler})
	if err != nil {
		return err
	}
	defer func() { _ = p.Close() }()
	_, err = p.CallTool(ctx, "test-tool", nil).Await(ctx)
	return err
}

// runAuth connects through OAuth and calls test-tool: discovery of the
// protected resource and authorization server metadata, registration (a
// client ID metadata document, the pre-registered client from the suite's
// context, or dynamic registration), authorization code with PKCE, scope
// step-up on 403 insufficient_scope, and the token on every request.
func runAuth(ctx context.Context, env *scenarioEnv) error {
	handler, err := newOAuthHandler(env.context, nil)
	if err != nil {
		return err
	}
	p, err := env.connect(ctx, transport.StreamableHTTP{OAuthHandler: handler})
	if err != nil {
		return err
	}
	defer func() { _ = p.Close() }()
	_, err = p.CallTool(ctx, "test-tool", nil).Await(ctx)
	return err
}

// newOAuthHandler configures go-sdk's authorization code handler with every
// registration method; the handler tries them in the order client ID
// metadata document, pre-registration, dynamic registration, as the
// authorization server's metadata allows. client, if not nil, sends the
// handler's requests (a DPoP's client, which adds proofs to token requests).
func newOAuthHandler(suiteContext map[string]any, client *http.Client) (*sdkauth.AuthorizationCodeHandler, error) {
	cfg := &sdkauth.AuthorizationCodeHandlerConfig{
		Client:                         client,
		RedirectURL:                    redirectURL,
		AuthorizationCodeFetcher:       fetchCode,
		ClientIDMetadataDocumentConfig: &sdkauth.ClientIDMetadataDocumentConfig{URL: clientMetadataURL},
		DynamicClientRegistrationConfig: &sdkauth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				RedirectURIs: []string{redirectURL},
				GrantTypes:   []string{"authorization_code", "refresh_token"},
			},
		},
		// A refresh token lets the token source renew an expired access
		// token without a new authorization (offline_access when the
		// authorization server offers it).
		RequestRefreshToken: true,
	}
	id, _ := suiteContext["client_id"].(string)
	secret, _ := suiteContext["client_secret"].(string)
	if id != "" && secret != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{
			ClientID:         id,
			ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: secret},
		}
	}
	h, err := sdkauth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return nil, fmt.Errorf("oauth handler: %w", err)
	}
	return h, nil
}

// fetchCode plays the user: the suite's authorization server approves at
// once and redirects to redirectURL with the code, the state and maybe the
// issuer, which fetchCode reads from the Location header.
func fetchCode(ctx context.Context, args *sdkauth.AuthorizationArgs) (*sdkauth.AuthorizationResult, error) {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args.URL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return nil, fmt.Errorf("authorization redirect: %w", err)
	}
	q := loc.Query()
	if e := q.Get("error"); e != "" {
		return nil, fmt.Errorf("authorization refused: %s %s", e, q.Get("error_description"))
	}
	if q.Get("code") == "" {
		return nil, errors.New("authorization redirect carries no code")
	}
	return &sdkauth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}
