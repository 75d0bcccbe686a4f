package auth_test

import (
	"context"
	"crypto"
	"crypto/elliptic"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"golang.org/x/oauth2"

	"github.com/cuca-go/mcpconnector/auth"
	"github.com/cuca-go/mcpconnector/transport"
)

// proofOf decodes a DPoP proof's header key and claims (the server of these
// tests has verified its signature already).
func proofOf(t *testing.T, proof string) (*jose.JSONWebKey, map[string]any) {
	t.Helper()
	sig, err := jose.ParseSignedCompact(proof, []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.RS256, jose.PS256, jose.EdDSA})
	require.NoError(t, err)
	var claims map[string]any
	require.NoError(t, json.Unmarshal(sig.UnsafePayloadWithoutVerification(), &claims))
	return sig.Signatures[0].Protected.JSONWebKey, claims
}

// dpopAS is a client credentials authorization server that binds tokens
// to the DPoP key of the token request's proof.
func dpopAS(t *testing.T) (*testAS, *auth.ClientCredentialsJWT) {
	ec := newECKey(t, elliptic.P256())
	key := auth.SigningKey{Signer: ec}
	a := clientCredentialsAS(t, &key)
	a.dpopAlgs = []string{"ES256"}
	return a, &auth.ClientCredentialsJWT{ClientID: a.clientID, Key: key}
}

func TestDPoPBindsTheTokenAndProvesEveryRequestAfresh(t *testing.T) {
	proofKey := newECKey(t, elliptic.P384())
	file, _ := keyFile(t, proofKey, "EC PRIVATE KEY")
	for name, d := range map[string]*auth.DPoP{"a key of its own": {}, "a key from a file": {Key: &auth.SigningKey{File: file}}} {
		t.Run(name, func(t *testing.T) {
			a, h := dpopAS(t)
			a.dpopAlgs = []string{"ES256", "ES384"}
			require.NoError(t, pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h, DPoP: d}, nil, 3))

			tokens, mcpCalls, replays := a.calls()
			require.Len(t, tokens, 1)
			tokenKey, tokenClaims := proofOf(t, tokens[0].header.Get("DPoP"))
			assert.Equal(t, "POST", tokenClaims["htm"])
			assert.Equal(t, a.tokenEndpoint(), tokenClaims["htu"])
			assert.NotContains(t, tokenClaims, "ath", "no token to bind at the token endpoint")
			if d.Key != nil {
				want, err := (&jose.JSONWebKey{Key: proofKey.Public()}).Thumbprint(crypto.SHA256)
				require.NoError(t, err)
				got, err := tokenKey.Thumbprint(crypto.SHA256)
				require.NoError(t, err)
				assert.Equal(t, want, got, "the proofs carry the configured key")
			}

			require.Len(t, mcpCalls, 4, "server/discover and three tools/call")
			jtis := map[any]bool{tokenClaims["jti"]: true}
			for _, c := range mcpCalls {
				assert.Equal(t, "DPoP", c.scheme, "a DPoP-bound token is never sent as a bearer token")
				key, claims := proofOf(t, c.proof)
				assert.Equal(t, tokenKey.Key, key.Key, "one key for the token and every request")
				assert.Equal(t, c.method, claims["htm"])
				assert.Equal(t, a.resource(), claims["htu"])
				assert.NotEmpty(t, claims["ath"])
				assert.False(t, jtis[claims["jti"]], "a proof's jti is never sent twice")
				jtis[claims["jti"]] = true
			}
			assert.Zero(t, replays)
		})
	}
}

func TestDPoPAnswersEachNonceChallengeWithExactlyOneRetry(t *testing.T) {
	a, h := dpopAS(t)
	a.tokenNonce, a.resourceNonce = "as-nonce-1", "rs-nonce-1"
	require.NoError(t, pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h, DPoP: &auth.DPoP{}}, nil, 3))

	tokens, mcpCalls, replays := a.calls()
	require.Len(t, tokens, 2, "the token request, then once more with the nonce")
	_, first := proofOf(t, tokens[0].header.Get("DPoP"))
	_, second := proofOf(t, tokens[1].header.Get("DPoP"))
	assert.NotContains(t, first, "nonce")
	assert.Equal(t, "as-nonce-1", second["nonce"])
	assert.NotEqual(t, first["jti"], second["jti"], "the retry has a proof of its own")
	assert.NotEqual(t, tokens[0].form.Get("client_assertion"), tokens[1].form.Get("client_assertion"),
		"and a client assertion of its own: the first one may have been spent")

	require.Len(t, mcpCalls, 5, "server/discover, its retry with the nonce, three tools/call")
	var withoutNonce int
	for i, c := range mcpCalls {
		_, claims := proofOf(t, c.proof)
		if claims["nonce"] != "rs-nonce-1" {
			withoutNonce++
			assert.Zero(t, i, "only the first request goes without the server's nonce")
		}
	}
	assert.Equal(t, 1, withoutNonce, "one challenge; later requests carry the nonce from the start")
	assert.Zero(t, replays)
}

func TestDPoPNonceThatIsNeverAcceptedEndsAfterOneRetry(t *testing.T) {
	t.Run("at the token endpoint", func(t *testing.T) {
		a, h := dpopAS(t)
		a.tokenNonce, a.rotateNonce = "as-nonce", true
		err := pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h, DPoP: &auth.DPoP{}}, nil, 1)
		require.Error(t, err)
		t.Log(err)
		assert.ErrorIs(t, err, auth.ErrDPoPNonce)
		tokens, _, _ := a.calls()
		assert.Len(t, tokens, 2)
	})
	t.Run("at the MCP server", func(t *testing.T) {
		a, h := dpopAS(t)
		a.resourceNonce, a.rotateNonce = "rs-nonce", true
		err := pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h, DPoP: &auth.DPoP{}}, nil, 1)
		require.Error(t, err)
		t.Log(err)
		assert.ErrorIs(t, err, auth.ErrDPoPNonce)
		tokens, mcpCalls, _ := a.calls()
		assert.Len(t, tokens, 1, "no new grant for a nonce")
		assert.Len(t, mcpCalls, 2, "the request with the token, and one retry")
	})
}

func TestDPoPProofRefusedAsAReplayEndsTheRequest(t *testing.T) {
	a, h := dpopAS(t)
	a.refuseProofs = true
	err := pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h, DPoP: &auth.DPoP{}}, nil, 1)
	require.Error(t, err)
	t.Log(err)
	assert.ErrorIs(t, err, auth.ErrDPoPProofRefused)
	assert.ErrorContains(t, err, "jti replayed")
	tokens, mcpCalls, _ := a.calls()
	assert.Len(t, tokens, 1, "another token, bound to the same key, would not help")
	assert.Len(t, mcpCalls, 1, "nor would the same request again")
}

func TestDPoPWithAServerThatIssuesBearerTokensSendsBearerAndWarnsOnce(t *testing.T) {
	ec := newECKey(t, elliptic.P256())
	key := auth.SigningKey{Signer: ec}
	a := clientCredentialsAS(t, &key)
	a.expiresIn = 1 // a new token for every request: the warning still comes once
	core, logs := observer.New(zapcore.DebugLevel)
	h := &auth.ClientCredentialsJWT{ClientID: a.clientID, Key: key}
	require.NoError(t, pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h, DPoP: &auth.DPoP{}}, zap.New(core), 2))

	_, mcpCalls, _ := a.calls()
	require.NotEmpty(t, mcpCalls)
	for _, c := range mcpCalls {
		assert.Equal(t, "Bearer", c.scheme)
		assert.Empty(t, c.proof, "no proof for a token that is not bound")
	}
	warnings := logs.FilterMessageSnippet("not DPoP-bound").All()
	require.Len(t, warnings, 1)
	assert.Equal(t, zapcore.WarnLevel, warnings[0].Level)
	var all strings.Builder
	for _, e := range logs.All() {
		all.WriteString(e.Message)
		b, _ := json.Marshal(e.ContextMap())
		all.Write(b)
	}
	d, _ := ec.Bytes()
	assert.NotContains(t, all.String(), base64.RawURLEncoding.EncodeToString(d))
}

func TestDPoPHTTPClientProvesTokenRequestsOnly(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{} // path → DPoP header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = r.Header.Get("DPoP")
		mu.Unlock()
		writeJSON(w, map[string]any{})
	}))
	defer srv.Close()
	d := &auth.DPoP{}
	c := d.HTTPClient(nil)
	assert.Same(t, c, d.HTTPClient(c), "wrapping twice adds nothing")

	post := func(path, contentType, body string) {
		resp, err := c.Post(srv.URL+path, contentType, strings.NewReader(body))
		require.NoError(t, err)
		auth.CloseBody(resp)
	}
	resp, err := c.Get(srv.URL + "/.well-known/oauth-authorization-server")
	require.NoError(t, err)
	auth.CloseBody(resp)
	post("/register", "application/json", `{"redirect_uris":["http://127.0.0.1/cb"]}`)
	post("/form", "application/x-www-form-urlencoded", "a=b")
	post("/token", "application/x-www-form-urlencoded", "grant_type=authorization_code&code=c")

	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, seen["/.well-known/oauth-authorization-server"])
	assert.Empty(t, seen["/register"])
	assert.Empty(t, seen["/form"], "a form without a grant_type is no token request")
	require.NotEmpty(t, seen["/token"])
	_, claims := proofOf(t, seen["/token"])
	assert.Equal(t, srv.URL+"/token", claims["htu"])
}

func TestDPoPHTTPClientAnswersATokenEndpointNonceOnce(t *testing.T) {
	for _, rotate := range []bool{false, true} {
		t.Run(map[bool]string{false: "the nonce is accepted", true: "no nonce is ever accepted"}[rotate], func(t *testing.T) {
			var mu sync.Mutex
			var proofs []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				proofs = append(proofs, r.Header.Get("DPoP"))
				n := len(proofs)
				mu.Unlock()
				// Not proofOf: a handler's goroutine must not stop the test.
				var claims map[string]any
				if sig, err := jose.ParseSignedCompact(r.Header.Get("DPoP"), []jose.SignatureAlgorithm{jose.ES256}); err == nil {
					_ = json.Unmarshal(sig.UnsafePayloadWithoutVerification(), &claims)
				}
				if rotate || claims["nonce"] != "n-1" {
					w.Header().Set("DPoP-Nonce", "n-"+strings.Repeat("1", n))
					oauthError(w, http.StatusBadRequest, "use_dpop_nonce", "nonce required")
					return
				}
				writeJSON(w, map[string]any{"access_token": "t", "token_type": "DPoP"})
			}))
			defer srv.Close()
			// As go-sdk's authorization code handler sends its token request.
			cfg := &oauth2.Config{ClientID: "c", Endpoint: oauth2.Endpoint{TokenURL: srv.URL + "/token", AuthStyle: oauth2.AuthStyleInParams}}
			ctx := context.WithValue(context.Background(), oauth2.HTTPClient, (&auth.DPoP{}).HTTPClient(nil))
			tok, err := cfg.Exchange(ctx, "code-1")
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, proofs, 2, "the request and one retry")
			_, first := proofOf(t, proofs[0])
			_, second := proofOf(t, proofs[1])
			assert.NotEqual(t, first["jti"], second["jti"])
			assert.Equal(t, "n-1", second["nonce"])
			if rotate {
				require.Error(t, err)
				assert.ErrorIs(t, err, auth.ErrDPoPNonce)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "DPoP", tok.TokenType)
		})
	}
}

func TestDPoPBindNeedsAHandlerAndAWorkingKey(t *testing.T) {
	_, _, err := (&auth.DPoP{}).Bind(nil, nil, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "DPoP needs an OAuthHandler")

	h := &auth.WorkloadIdentity{Assertion: func(context.Context) (string, error) { return "", nil }}
	_, _, err = (&auth.DPoP{Key: &auth.SigningKey{}}).Bind(nil, h, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "set File or Signer")

	c, bound, err := (&auth.DPoP{}).Bind(nil, h, nil)
	require.NoError(t, err)
	assert.NotNil(t, c.Transport, "the client presents bound tokens with proofs")
	assert.NotSame(t, h, bound, "the handler is wrapped to note bindings")
}
