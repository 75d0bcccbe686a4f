package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/auth"
	"github.com/cuca-go/mcpconnector/transport"
)

// testIdP is an enterprise identity provider: it issues the user's ID
// token and exchanges it (RFC 8693) for an ID-JAG addressed to the MCP
// server's authorization server.
type testIdP struct {
	srv      *httptest.Server
	key      *ecdsa.PrivateKey
	clientID string // the MCP client's id at the IdP
	// mcpClientID is the client the ID-JAG is for at the MCP server's
	// authorization server.
	mcpClientID string
	// answer, when set, answers token requests instead.
	answer http.HandlerFunc

	mu       sync.Mutex
	requests []url.Values
}

func newTestIdP(t *testing.T, mcpClientID string) *testIdP {
	idp := &testIdP{key: newECKey(t, elliptic.P256()), clientID: "mcp-client-at-idp", mcpClientID: mcpClientID}
	mux := http.NewServeMux()
	idp.srv = httptest.NewServer(mux)
	t.Cleanup(idp.srv.Close)
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		// An IdP's OpenID configuration: no PKCE methods listed, which the
		// token exchange does not need.
		writeJSON(w, map[string]any{"issuer": idp.srv.URL, "token_endpoint": idp.srv.URL + "/oauth2/token",
			"grant_types_supported": []string{oauthex.GrantTypeTokenExchange}})
	})
	mux.HandleFunc("/oauth2/token", idp.token)
	return idp
}

// idToken is what the user's single sign-on gave the MCP client.
func (idp *testIdP) idToken(t *testing.T, ttl time.Duration) string {
	now := time.Now()
	return issueJWT(t, idp.key, "", jwt.Claims{Issuer: idp.srv.URL, Subject: "alice", Audience: jwt.Audience{idp.clientID},
		IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(ttl))})
}

func (idp *testIdP) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "not a form")
		return
	}
	idp.mu.Lock()
	idp.requests = append(idp.requests, r.PostForm)
	idp.mu.Unlock()
	if idp.answer != nil {
		idp.answer(w, r)
		return
	}
	f := r.PostForm
	if f.Get("grant_type") != oauthex.GrantTypeTokenExchange || f.Get("requested_token_type") != oauthex.TokenTypeIDJAG ||
		f.Get("subject_token_type") != oauthex.TokenTypeIDToken || f.Get("client_id") != idp.clientID {
		oauthError(w, http.StatusBadRequest, "invalid_request", "not an ID-JAG token exchange")
		return
	}
	parsed, err := jwt.ParseSigned(f.Get("subject_token"), []jose.SignatureAlgorithm{jose.ES256})
	var claims jwt.Claims
	if err == nil {
		err = parsed.Claims(idp.key.Public(), &claims)
	}
	if err == nil {
		err = claims.Validate(jwt.Expected{Issuer: idp.srv.URL, AnyAudience: jwt.Audience{idp.clientID}, Time: time.Now()})
	}
	if err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_grant", "ID token: "+err.Error())
		return
	}
	now := time.Now()
	jag := issueJWTFromHandler(idp.key, "oauth-id-jag+jwt", jwt.Claims{Issuer: idp.srv.URL, Subject: claims.Subject,
		Audience: jwt.Audience{f.Get("audience")}, ID: rand.Text(),
		IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(5 * time.Minute))},
		map[string]any{"resource": f.Get("resource"), "client_id": idp.mcpClientID})
	writeJSON(w, map[string]any{"access_token": jag, "issued_token_type": oauthex.TokenTypeIDJAG, "token_type": "N_A", "expires_in": 300})
}

func (idp *testIdP) calls() []url.Values {
	idp.mu.Lock()
	defer idp.mu.Unlock()
	return slices.Clone(idp.requests)
}

// issueJWTFromHandler is issueJWT for a server's handler, which has no
// *testing.T to fail: a signing error leaves the token empty, which the
// client under test then sends and the server refuses.
func issueJWTFromHandler(key *ecdsa.PrivateKey, typ string, claims ...any) string {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
	if err != nil {
		return ""
	}
	b := jwt.Signed(signer)
	for _, c := range claims {
		b = b.Claims(c)
	}
	token, _ := b.Serialize()
	return token
}

// enterpriseSetup is an IdP and the MCP server's authorization server,
// which trusts that IdP's ID-JAGs.
func enterpriseSetup(t *testing.T) (*testIdP, *testAS) {
	a := newTestAS(t)
	a.clientID, a.clientSecret = "mcp-client", "mcp-client-secret-5d1c"
	a.grantTypes = []string{auth.GrantJWTBearer}
	a.authMethods = []string{"client_secret_basic"}
	idp := newTestIdP(t, a.clientID)
	a.assertionKey = idp.key.Public()
	return idp, a
}

func (idp *testIdP) handler(a *testAS, idToken string) *auth.EnterpriseAuth {
	return &auth.EnterpriseAuth{
		IDToken:     func(context.Context) (string, error) { return idToken, nil },
		IdPIssuer:   idp.srv.URL,
		IdPClientID: idp.clientID,
		ClientID:    a.clientID, ClientSecret: a.clientSecret,
	}
}

func TestEnterpriseAuthExchangesTheIDTokenForAnIDJAGAndThatForAToken(t *testing.T) {
	idp, a := enterpriseSetup(t)
	idToken := idp.idToken(t, time.Hour)
	require.NoError(t, pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: idp.handler(a, idToken)}, nil, 2))

	exchanges := idp.calls()
	require.Len(t, exchanges, 1)
	x := exchanges[0]
	assert.Equal(t, idToken, x.Get("subject_token"))
	assert.Equal(t, a.issuer(), x.Get("audience"), "the ID-JAG is addressed to the MCP server's authorization server")
	assert.Equal(t, a.resource(), x.Get("resource"))
	assert.Equal(t, "mcp:tools", x.Get("scope"))

	tokens, _, _ := a.calls()
	require.Len(t, tokens, 1)
	g := tokens[0]
	assert.Equal(t, auth.GrantJWTBearer, g.form.Get("grant_type"))
	assert.Equal(t, a.resource(), g.form.Get("resource"))
	id, secret, ok := (&http.Request{Header: g.header}).BasicAuth()
	require.True(t, ok, "client_secret_basic, as the server lists")
	assert.Equal(t, a.clientID, id)
	assert.Equal(t, a.clientSecret, secret)
	assert.False(t, g.form.Has("client_secret"))
	jag, err := jwt.ParseSigned(g.form.Get("assertion"), []jose.SignatureAlgorithm{jose.ES256})
	require.NoError(t, err)
	assert.Equal(t, "oauth-id-jag+jwt", jag.Headers[0].ExtraHeaders[jose.HeaderType], "the IdP's ID-JAG, as it was issued")
}

func TestEnterpriseAuthAuthenticatesAsTheServerLists(t *testing.T) {
	t.Run("client_secret_post", func(t *testing.T) {
		idp, a := enterpriseSetup(t)
		a.authMethods = []string{"client_secret_post"}
		require.NoError(t, pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: idp.handler(a, idp.idToken(t, time.Hour))}, nil, 1))
		tokens, _, _ := a.calls()
		require.Len(t, tokens, 1)
		assert.Empty(t, tokens[0].header.Get("Authorization"))
		assert.Equal(t, a.clientSecret, tokens[0].form.Get("client_secret"))
	})
	t.Run("private_key_jwt", func(t *testing.T) {
		idp, a := enterpriseSetup(t)
		ec := newECKey(t, elliptic.P256())
		a.authMethods, a.clientSecret, a.clientKey = []string{"private_key_jwt"}, "", ec.Public()
		h := idp.handler(a, idp.idToken(t, time.Hour))
		h.ClientSecret, h.Key = "", &auth.SigningKey{Signer: ec}
		require.NoError(t, pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h}, nil, 1))
		tokens, _, _ := a.calls()
		require.Len(t, tokens, 1)
		assert.Equal(t, auth.ClientAssertionJWT, tokens[0].form.Get("client_assertion_type"))
		assert.NotEmpty(t, tokens[0].form.Get("assertion"))
	})
}

func TestEnterpriseAuthRefusalsAreFinalAndQuoteNoToken(t *testing.T) {
	for _, tc := range []struct {
		name          string
		setup         func(idp *testIdP, a *testAS) (idToken string)
		exchanges     int
		grants        int
		check         func(t *testing.T, idp *testIdP, a *testAS, err error)
		idTokenFailed bool
	}{
		{"the ID token expired", func(idp *testIdP, _ *testAS) string { return idp.idToken(t, -time.Minute) }, 1, 0,
			func(t *testing.T, idp *testIdP, _ *testAS, err error) {
				var te *auth.TokenError
				require.ErrorAs(t, err, &te)
				assert.Equal(t, "invalid_grant", te.Code)
				assert.Equal(t, idp.srv.URL+"/oauth2/token", te.Endpoint, "the error names the IdP")
				assert.Equal(t, oauthex.GrantTypeTokenExchange, te.GrantType)
			}, false},
		{"the IdP issues something else", func(idp *testIdP, _ *testAS) string {
			idp.answer = func(w http.ResponseWriter, _ *http.Request) {
				writeJSON(w, map[string]any{"access_token": "x", "issued_token_type": oauthex.TokenTypeIDToken, "token_type": "N_A"})
			}
			return idp.idToken(t, time.Hour)
		}, 1, 0, func(t *testing.T, _ *testIdP, _ *testAS, err error) {
			assert.ErrorIs(t, err, auth.ErrBadTokenResponse)
			assert.ErrorContains(t, err, "not an ID-JAG")
		}, false},
		{"the authorization server trusts another IdP", func(idp *testIdP, a *testAS) string {
			a.assertionKey = newECKey(t, elliptic.P256()).Public()
			return idp.idToken(t, time.Hour)
		}, 1, 1, func(t *testing.T, _ *testIdP, a *testAS, err error) {
			var te *auth.TokenError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, "invalid_grant", te.Code)
			assert.Equal(t, a.tokenEndpoint(), te.Endpoint)
		}, false},
		{"the client secret is wrong", func(idp *testIdP, a *testAS) string {
			a.clientSecret = "another-secret"
			return idp.idToken(t, time.Hour)
		}, 1, 1, func(t *testing.T, _ *testIdP, _ *testAS, err error) {
			var te *auth.TokenError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, "invalid_client", te.Code)
			assert.NotContains(t, err.Error(), "mcp-client-secret-5d1c")
		}, false},
		{"single sign-on failed", func(*testIdP, *testAS) string { return "" }, 0, 0,
			func(t *testing.T, _ *testIdP, _ *testAS, err error) {
				assert.ErrorContains(t, err, "ID token: session ended")
			}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idp, a := enterpriseSetup(t)
			idToken := tc.setup(idp, a)
			h := idp.handler(a, idToken)
			h.ClientSecret = "mcp-client-secret-5d1c"
			if tc.idTokenFailed {
				h.IDToken = func(context.Context) (string, error) { return "", errors.New("session ended") }
			}
			err := pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h}, nil, 1)
			require.Error(t, err)
			t.Log(err)
			tc.check(t, idp, a, err)
			if idToken != "" {
				assert.NotContains(t, err.Error(), idToken)
			}
			tokens, _, _ := a.calls()
			assert.Len(t, idp.calls(), tc.exchanges)
			assert.Len(t, tokens, tc.grants)
		})
	}
}
