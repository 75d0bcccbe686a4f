package transport

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/auth"
)

// The names that moved to package auth still work here, as the same types
// and the same sentinels.
func TestAuthNamesForwardToPackageAuth(t *testing.T) {
	var d *auth.DPoP = &DPoP{}
	tr := StreamableHTTP{URL: "https://mcp.example/mcp", DPoP: d,
		OAuthHandler: &ClientCredentialsJWT{ClientID: "c"}}
	_, err := tr.Open(nil)
	require.Error(t, err, "the handler's own check runs at Open")
	assert.Contains(t, err.Error(), "set File or Signer")

	for _, pair := range [][2]error{
		{ErrDPoPNonce, auth.ErrDPoPNonce},
		{ErrDPoPProofRefused, auth.ErrDPoPProofRefused},
		{ErrBadTokenResponse, auth.ErrBadTokenResponse},
	} {
		assert.True(t, errors.Is(pair[0], pair[1]), "%v", pair[0])
	}
	var te *TokenError
	assert.True(t, errors.As(error(&auth.TokenError{Endpoint: "e"}), &te))
}
