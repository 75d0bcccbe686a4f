package auth_test

import (
	"context"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/auth"
	"github.com/cuca-go/mcpconnector/internal/core/directcall"
	"github.com/cuca-go/mcpconnector/transport"
)

// pingWith connects over tr (opened with logger) at MCP 2026-07-28 and
// calls "ping" calls times. Like the plugin's connection, it keeps go-sdk's
// fallback to a legacy initialize off the wire and returns the error of
// server/discover instead.
func pingWith(t *testing.T, tr transport.StreamableHTTP, logger *zap.Logger, calls int) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	mt, err := tr.Open(logger)
	if err != nil {
		return err
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	var discoverErr error
	c.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "initialize" || method == "notifications/initialized" {
				return nil, errors.New("legacy initialize refused")
			}
			res, err := next(ctx, method, req)
			if method == "server/discover" {
				discoverErr = err
			}
			return res, err
		}
	})
	session, err := c.Connect(ctx, mt, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		if discoverErr != nil {
			return discoverErr
		}
		return err
	}
	defer func() { _ = session.Close() }()
	direct := directcall.CallerOf(mt)
	for i := range calls {
		// Every other call takes the transport's direct tools/call, which
		// POSTs through the same client and OAuth handler; a challenge it
		// leaves to the session.
		var res *mcp.CallToolResult
		if direct != nil && i%2 == 1 {
			res, err = direct.CallTool(ctx, &mcp.CallToolParams{Name: "ping"}, nil)
		}
		if direct == nil || i%2 == 0 || errors.Is(err, directcall.ErrCallOnSession) {
			res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "ping"})
		}
		if err != nil {
			return err
		}
		if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "pong" {
			return errors.New("ping did not answer pong")
		}
	}
	return nil
}

// clientCredentialsAS is a testAS for the client credentials grant with
// private_key_jwt, checking assertions with key's public half.
func clientCredentialsAS(t *testing.T, key *auth.SigningKey) *testAS {
	a := newTestAS(t)
	a.grantTypes = []string{auth.GrantClientCredentials}
	a.authMethods = []string{"private_key_jwt"}
	_, pub, err := auth.LoadKey(*key)
	require.NoError(t, err)
	a.clientKey = pub
	return a
}

func TestClientCredentialsJWTAuthenticatesWithAFreshAssertionPerGrant(t *testing.T) {
	ec := newECKey(t, elliptic.P256())
	file, _ := keyFile(t, ec, "PRIVATE KEY")
	key := auth.SigningKey{File: file}
	a := clientCredentialsAS(t, &key)
	a.signingAlgs = []string{"ES256"}
	a.expiresIn = 1 // oauth2 takes a token this short-lived as expired: every request runs the grant again

	h := &auth.ClientCredentialsJWT{ClientID: a.clientID, Key: key, Scopes: []string{"mcp:tools"}}
	require.NoError(t, pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h}, nil, 2))

	tokens, _, _ := a.calls()
	require.GreaterOrEqual(t, len(tokens), 2, "the expired token was replaced by another grant")
	jtis := map[string]bool{}
	for _, c := range tokens {
		f := c.form
		assert.Equal(t, auth.GrantClientCredentials, f.Get("grant_type"))
		assert.Equal(t, auth.ClientAssertionJWT, f.Get("client_assertion_type"))
		assert.Equal(t, a.resource(), f.Get("resource"), "RFC 8707 resource")
		assert.Equal(t, "mcp:tools", f.Get("scope"))
		assert.False(t, f.Has("client_id"), "the assertion's sub names the client")
		assert.False(t, f.Has("client_secret"))
		assert.Empty(t, c.header.Get("Authorization"))

		parsed, err := jwt.ParseSigned(f.Get("client_assertion"), []jose.SignatureAlgorithm{jose.ES256})
		require.NoError(t, err)
		var claims jwt.Claims
		require.NoError(t, parsed.Claims(ec.Public(), &claims))
		assert.Equal(t, a.clientID, claims.Issuer)
		assert.Equal(t, a.clientID, claims.Subject)
		assert.Equal(t, jwt.Audience{a.issuer()}, claims.Audience)
		assert.LessOrEqual(t, claims.Expiry.Time().Sub(claims.IssuedAt.Time()), time.Minute)
		assert.False(t, jtis[claims.ID], "an assertion's jti is never used twice")
		jtis[claims.ID] = true
	}
}

func TestClientCredentialsJWTSignsWithACryptoSigner(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	key := auth.SigningKey{Signer: rsaKey, Algorithm: "PS256", KeyID: "2026-11"}
	a := clientCredentialsAS(t, &key)
	require.NoError(t, pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: &auth.ClientCredentialsJWT{ClientID: a.clientID, Key: key}}, nil, 1))
	tokens, _, _ := a.calls()
	require.Len(t, tokens, 1)
	parsed, err := jwt.ParseSigned(tokens[0].form.Get("client_assertion"), []jose.SignatureAlgorithm{jose.PS256})
	require.NoError(t, err)
	assert.Equal(t, "2026-11", parsed.Headers[0].KeyID)
	assert.Equal(t, "mcp:tools", tokens[0].form.Get("scope"), "no scopes configured: those of the resource metadata")
}

func TestClientCredentialsJWTEndsInAClearErrorWithoutRetrying(t *testing.T) {
	ec, other := newECKey(t, elliptic.P256()), newECKey(t, elliptic.P256())
	file, pemText := keyFile(t, ec, "PRIVATE KEY")
	secrets := secretsOf(pemText, ec)
	key := auth.SigningKey{File: file}
	for _, tc := range []struct {
		name     string
		setup    func(a *testAS)
		requests int // token requests the server must see
		check    func(t *testing.T, err error)
	}{
		{"the server knows another key", func(a *testAS) { a.clientKey = other.Public() }, 1, func(t *testing.T, err error) {
			var te *auth.TokenError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, "invalid_client", te.Code)
			assert.Equal(t, http.StatusUnauthorized, te.StatusCode)
			assert.Equal(t, auth.GrantClientCredentials, te.GrantType)
			assert.Contains(t, te.Description, "bad signature")
		}},
		{"the server takes no private_key_jwt", func(a *testAS) { a.authMethods = []string{"client_secret_basic"} }, 0, func(t *testing.T, err error) {
			assert.ErrorContains(t, err, "does not accept private_key_jwt (it lists client_secret_basic)")
		}},
		{"the server takes another algorithm", func(a *testAS) { a.signingAlgs = []string{"RS256"} }, 0, func(t *testing.T, err error) {
			assert.ErrorContains(t, err, "signed with RS256, not ES256")
		}},
		{"the server offers no client credentials grant", func(a *testAS) { a.grantTypes = []string{"authorization_code"} }, 0, func(t *testing.T, err error) {
			assert.ErrorContains(t, err, "does not offer the client_credentials grant")
		}},
		{"the token endpoint answers HTML", func(a *testAS) {
			a.tokenAnswer = func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write([]byte("<html><body>maintenance</body></html>"))
			}
		}, 1, func(t *testing.T, err error) {
			assert.ErrorIs(t, err, auth.ErrBadTokenResponse)
			assert.NotContains(t, err.Error(), "maintenance")
		}},
		{"the token endpoint answers JSON without a token", func(a *testAS) {
			a.tokenAnswer = func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, map[string]any{"token_type": "Bearer"}) }
		}, 1, func(t *testing.T, err error) {
			assert.ErrorIs(t, err, auth.ErrBadTokenResponse)
		}},
		{"the token endpoint answers a token of an unknown type", func(a *testAS) {
			a.tokenAnswer = func(w http.ResponseWriter, _ *http.Request) {
				writeJSON(w, map[string]any{"access_token": "t", "token_type": "MAC"})
			}
		}, 1, func(t *testing.T, err error) {
			assert.ErrorIs(t, err, auth.ErrBadTokenResponse)
			assert.ErrorContains(t, err, `token_type "MAC"`)
		}},
		{"the token endpoint fails with a page", func(a *testAS) {
			a.tokenAnswer = func(w http.ResponseWriter, _ *http.Request) {
				http.Error(w, "upstream exploded: stack trace follows", http.StatusBadGateway)
			}
		}, 1, func(t *testing.T, err error) {
			var te *auth.TokenError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, http.StatusBadGateway, te.StatusCode)
			assert.Empty(t, te.Code)
			assert.NotContains(t, err.Error(), "stack trace", "the body of a failure is not quoted")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := clientCredentialsAS(t, &key)
			tc.setup(a)
			err := pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: &auth.ClientCredentialsJWT{ClientID: a.clientID, Key: key}}, nil, 1)
			require.Error(t, err)
			t.Log(err)
			tc.check(t, err)
			assertNoSecret(t, err.Error(), secrets)
			tokens, _, _ := a.calls()
			assert.Len(t, tokens, tc.requests, "one token request at most: a refusal is final")
			for _, c := range tokens {
				assert.NotContains(t, err.Error(), c.form.Get("client_assertion"))
			}
		})
	}
}

func TestAuthOptionsAreCheckedAtOpen(t *testing.T) {
	ec := newECKey(t, elliptic.P256())
	for name, tc := range map[string]struct {
		tr   transport.StreamableHTTP
		want string
	}{
		"client credentials without a client id": {transport.StreamableHTTP{OAuthHandler: &auth.ClientCredentialsJWT{Key: auth.SigningKey{Signer: ec}}}, "empty ClientID"},
		"client credentials without a key":       {transport.StreamableHTTP{OAuthHandler: &auth.ClientCredentialsJWT{ClientID: "c"}}, "set File or Signer"},
		"workload identity without a JWT":        {transport.StreamableHTTP{OAuthHandler: &auth.WorkloadIdentity{}}, "exactly one of AssertionFile and Assertion"},
		"enterprise with nothing":                {transport.StreamableHTTP{OAuthHandler: &auth.EnterpriseAuth{}}, "missing IDToken, IdPIssuer or IdPTokenEndpoint, IdPClientID, ClientID"},
		"enterprise with a secret and a key": {transport.StreamableHTTP{OAuthHandler: &auth.EnterpriseAuth{
			IDToken: func(context.Context) (string, error) { return "", nil }, IdPIssuer: "https://idp", IdPClientID: "i",
			ClientID: "c", ClientSecret: "s", Key: &auth.SigningKey{Signer: ec}}}, "at most one of ClientSecret and Key"},
		"DPoP without a handler":   {transport.StreamableHTTP{DPoP: &auth.DPoP{}}, "DPoP needs an OAuthHandler"},
		"DPoP with a bearer token": {transport.StreamableHTTP{DPoP: &auth.DPoP{}, BearerToken: "t"}, "DPoP needs an OAuthHandler"},
		"DPoP with a bad key": {transport.StreamableHTTP{DPoP: &auth.DPoP{Key: &auth.SigningKey{Signer: ec, Algorithm: "HS256"}},
			OAuthHandler: &auth.WorkloadIdentity{AssertionFile: "/x"}}, "unsupported algorithm"},
	} {
		t.Run(name, func(t *testing.T) {
			tc.tr.URL = "http://127.0.0.1:1/mcp"
			_, err := tc.tr.Open(nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestAGrantAsksForMoreScopesOnInsufficientScopeAndStopsOnAPlain403(t *testing.T) {
	ec := newECKey(t, elliptic.P256())
	key := auth.SigningKey{Signer: ec}
	for name, configured := range map[string][]string{"discovered scopes": nil, "configured scopes": {"mcp:read"}} {
		t.Run("step-up with "+name, func(t *testing.T) {
			a := clientCredentialsAS(t, &key)
			a.requiredScope = "mcp:admin"
			h := &auth.ClientCredentialsJWT{ClientID: a.clientID, Key: key, Scopes: configured}
			require.NoError(t, pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h}, nil, 1))
			tokens, _, _ := a.calls()
			require.Len(t, tokens, 2, "the first grant, then one with the scope the server asked for")
			first := "mcp:tools"
			if configured != nil {
				first = "mcp:read"
			}
			assert.Equal(t, first, tokens[0].form.Get("scope"))
			assert.Equal(t, first+" mcp:admin", tokens[1].form.Get("scope"), "the scopes granted before are kept")
		})
	}
	t.Run("forbidden", func(t *testing.T) {
		a := clientCredentialsAS(t, &key)
		a.forbid = true
		h := &auth.ClientCredentialsJWT{ClientID: a.clientID, Key: key}
		err := pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h}, nil, 1)
		require.Error(t, err)
		assert.ErrorContains(t, err, "refused the request (HTTP 403) for a reason more scopes would not fix")
		tokens, _, _ := a.calls()
		assert.Len(t, tokens, 1, "no grant for a refusal that no grant fixes")
	})
}
