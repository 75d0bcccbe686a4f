package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/auth"
	"github.com/cuca-go/mcpconnector/transport"
)

// issueJWT signs claims with key, as a workload platform or an IdP would.
func issueJWT(t *testing.T, key *ecdsa.PrivateKey, typ string, claims ...any) string {
	t.Helper()
	opts := &jose.SignerOptions{}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
	require.NoError(t, err)
	b := jwt.Signed(signer)
	for _, c := range claims {
		b = b.Claims(c)
	}
	token, err := b.Serialize()
	require.NoError(t, err)
	return token
}

// workloadJWT is a platform-issued JWT for audience, valid for ttl from now
// (a negative ttl makes it expired).
func workloadJWT(t *testing.T, key *ecdsa.PrivateKey, audience string, ttl time.Duration) string {
	now := time.Now()
	return issueJWT(t, key, "", jwt.Claims{
		Issuer: "https://platform.example", Subject: "system:serviceaccount:agents:reporter",
		Audience: jwt.Audience{audience}, ID: rand.Text(),
		IssuedAt: jwt.NewNumericDate(now.Add(-time.Minute)), Expiry: jwt.NewNumericDate(now.Add(ttl)),
	})
}

func workloadAS(t *testing.T, platform *ecdsa.PrivateKey) *testAS {
	a := newTestAS(t)
	a.grantTypes = []string{auth.GrantJWTBearer}
	a.authMethods = []string{"none"}
	a.assertionKey = platform.Public()
	return a
}

func TestWorkloadIdentityPresentsThePlatformJWTAndRereadsItsFile(t *testing.T) {
	platform := newECKey(t, elliptic.P256())
	a := workloadAS(t, platform)
	a.expiresIn = 1 // every request runs the grant again, with the file as it is then
	file := filepath.Join(t.TempDir(), "token")
	first := workloadJWT(t, platform, a.issuer(), time.Hour)
	require.NoError(t, os.WriteFile(file, []byte(first+"\n"), 0o600))

	h := &auth.WorkloadIdentity{AssertionFile: file}
	tr := transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h}
	require.NoError(t, pingWith(t, tr, nil, 1))
	rotated := workloadJWT(t, platform, a.issuer(), time.Hour)
	require.NoError(t, os.WriteFile(file, []byte(rotated), 0o600))
	require.NoError(t, pingWith(t, tr, nil, 1))

	tokens, _, _ := a.calls()
	require.GreaterOrEqual(t, len(tokens), 2)
	for _, c := range tokens {
		assert.Equal(t, auth.GrantJWTBearer, c.form.Get("grant_type"))
		assert.Equal(t, a.resource(), c.form.Get("resource"))
		assert.False(t, c.form.Has("client_id"), "no ClientID configured, none sent")
		assert.False(t, c.form.Has("client_assertion"))
	}
	assert.Equal(t, first, tokens[0].form.Get("assertion"), "the file's JWT, trimmed")
	assert.Equal(t, rotated, tokens[len(tokens)-1].form.Get("assertion"), "the file is read again at each grant")
}

func TestWorkloadIdentityRefusalsAreFinal(t *testing.T) {
	platform, stranger := newECKey(t, elliptic.P256()), newECKey(t, elliptic.P256())
	for _, tc := range []struct {
		name     string
		jwt      func(a *testAS) string
		scopes   []string
		code     string
		describe string
	}{
		{"an expired JWT", func(a *testAS) string { return workloadJWT(t, platform, a.issuer(), -time.Minute) }, nil,
			"invalid_grant", "token is expired"},
		{"a JWT for another audience", func(a *testAS) string { return workloadJWT(t, platform, "https://wrong.example", time.Hour) }, nil,
			"invalid_grant", "invalid audience"},
		{"a JWT of an issuer the server does not trust", func(a *testAS) string { return workloadJWT(t, stranger, a.issuer(), time.Hour) }, nil,
			"invalid_grant", "bad signature"},
		{"a scope the workload may not have", func(a *testAS) string { return workloadJWT(t, platform, a.issuer(), time.Hour) },
			[]string{"forbidden"}, "invalid_scope", "scope not permitted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := workloadAS(t, platform)
			assertion := tc.jwt(a)
			h := &auth.WorkloadIdentity{
				Assertion: func(context.Context) (string, error) { return assertion, nil },
				ClientID:  "reporter", Scopes: tc.scopes,
			}
			err := pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h}, nil, 1)
			require.Error(t, err)
			t.Log(err)
			var te *auth.TokenError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, tc.code, te.Code)
			assert.Equal(t, auth.GrantJWTBearer, te.GrantType)
			assert.Contains(t, te.Description, tc.describe)
			assert.NotContains(t, err.Error(), assertion, "the JWT is a credential: never in an error")

			tokens, _, _ := a.calls()
			require.Len(t, tokens, 1, "no retry, and no fallback to another grant")
			assert.Equal(t, "reporter", tokens[0].form.Get("client_id"))
		})
	}
}

func TestWorkloadIdentityWithoutAJWTSendsNothing(t *testing.T) {
	platform := newECKey(t, elliptic.P256())
	for name, h := range map[string]*auth.WorkloadIdentity{
		"a missing file":      {AssertionFile: filepath.Join(t.TempDir(), "absent")},
		"an empty JWT":        {Assertion: func(context.Context) (string, error) { return " \n", nil }},
		"not a JWT":           {Assertion: func(context.Context) (string, error) { return "opaque-secret", nil }},
		"the platform failed": {Assertion: func(context.Context) (string, error) { return "", errors.New("metadata service down") }},
	} {
		t.Run(name, func(t *testing.T) {
			a := workloadAS(t, platform)
			err := pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h}, nil, 1)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "auth: workload identity: workload JWT")
			assert.NotContains(t, err.Error(), "opaque-secret")
			tokens, _, _ := a.calls()
			assert.Empty(t, tokens)
		})
	}
}
