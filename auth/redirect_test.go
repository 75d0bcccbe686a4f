package auth_test

import (
	"crypto/elliptic"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/auth"
	"github.com/cuca-go/mcpconnector/transport"
)

// A token endpoint that redirects (307) to another origin over plain http
// never gets the POST re-sent there: the client assertion, fresh or not,
// stays home, and the grant fails saying why.
func TestATokenRequestNeverFollowsARedirectToAnotherOrigin(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		leaked = append(leaked, string(body))
		mu.Unlock()
		http.Error(w, "gotcha", http.StatusBadRequest)
	}))
	defer sink.Close()
	ec := newECKey(t, elliptic.P256())
	file, _ := keyFile(t, ec, "PRIVATE KEY")
	key := auth.SigningKey{File: file}
	a := clientCredentialsAS(t, &key)
	a.signingAlgs = []string{"ES256"}
	a.tokenAnswer = func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, sink.URL+"/token", http.StatusTemporaryRedirect)
	}

	h := &auth.ClientCredentialsJWT{ClientID: a.clientID, Key: key, Scopes: []string{"mcp:tools"}}
	err := pingWith(t, transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h}, nil, 1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "redirect to another origin refused")
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, leaked, "the token request never reached the redirect's target")
}

// A token endpoint's words reach the error with their control characters
// escaped: its error code as its description.
func TestTokenErrorsQuoteTheEndpointWithoutControlCharacters(t *testing.T) {
	e := &auth.TokenError{Endpoint: "https://as.example/token", GrantType: "client_credentials", StatusCode: 400,
		Code: "invalid_grant\x1b]52;c;ZXZpbA==\x07", Description: "no\x1b[8mhidden\u009b"}
	msg := e.Error()
	for _, bad := range []string{"\x1b", "\x07", "\u009b"} {
		assert.NotContains(t, msg, bad)
	}
	assert.Contains(t, msg, `invalid_grant\x1b]52;c;ZXZpbA==\a`)
}
