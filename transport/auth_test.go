package transport

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/auth"
)

// An authorization handler of package auth is checked when the transport
// opens, not at the first request.
func TestAuthHandlerIsCheckedAtOpen(t *testing.T) {
	tr := StreamableHTTP{URL: "https://mcp.example/mcp", DPoP: &auth.DPoP{},
		OAuthHandler: &auth.ClientCredentialsJWT{ClientID: "c"}}
	_, err := tr.Open(nil)
	require.Error(t, err, "the handler's own check runs at Open")
	assert.Contains(t, err.Error(), "set File or Signer")
}
