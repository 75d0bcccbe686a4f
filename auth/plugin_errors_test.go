package auth_test

import (
	"crypto/elliptic"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/auth"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// The auth rows of docs/errors.md through a plugin: every auth error a
// grant or a proof ends in reaches plugin.Connect's error for errors.Is
// and errors.As, not only its text, and none passes for the server's
// JSON-RPC error.
func TestAuthErrorsReachThePluginsError(t *testing.T) {
	ec := newECKey(t, elliptic.P256())
	key := auth.SigningKey{Signer: ec}
	rows := []struct {
		row   string
		setup func(t *testing.T) transport.StreamableHTTP
		check func(t *testing.T, err error)
	}{
		{"*auth.TokenError: the token endpoint refuses the client", func(t *testing.T) transport.StreamableHTTP {
			a := clientCredentialsAS(t, &key)
			a.clientKey = newECKey(t, elliptic.P256()).Public() // it knows another key
			return transport.StreamableHTTP{URL: a.resource(), OAuthHandler: &auth.ClientCredentialsJWT{ClientID: a.clientID, Key: key}}
		}, func(t *testing.T, err error) {
			var te *auth.TokenError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, "invalid_client", te.Code)
			assert.Equal(t, http.StatusUnauthorized, te.StatusCode)
			assert.Equal(t, auth.GrantClientCredentials, te.GrantType)
		}},
		{"auth.ErrBadTokenResponse: the token endpoint answers HTML", func(t *testing.T) transport.StreamableHTTP {
			a := clientCredentialsAS(t, &key)
			a.tokenAnswer = func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write([]byte("<html><body>maintenance</body></html>"))
			}
			return transport.StreamableHTTP{URL: a.resource(), OAuthHandler: &auth.ClientCredentialsJWT{ClientID: a.clientID, Key: key}}
		}, func(t *testing.T, err error) {
			assert.ErrorIs(t, err, auth.ErrBadTokenResponse)
		}},
		{"auth.ErrDPoPNonce: the token endpoint never accepts its nonce", func(t *testing.T) transport.StreamableHTTP {
			a, h := dpopAS(t)
			a.tokenNonce, a.rotateNonce = "as-nonce", true
			return transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h, DPoP: &auth.DPoP{}}
		}, func(t *testing.T, err error) {
			assert.ErrorIs(t, err, auth.ErrDPoPNonce)
		}},
		{"auth.ErrDPoPNonce: the MCP server never accepts its nonce", func(t *testing.T) transport.StreamableHTTP {
			a, h := dpopAS(t)
			a.resourceNonce, a.rotateNonce = "rs-nonce", true
			return transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h, DPoP: &auth.DPoP{}}
		}, func(t *testing.T, err error) {
			assert.ErrorIs(t, err, auth.ErrDPoPNonce)
		}},
		{"auth.ErrDPoPProofRefused: the MCP server takes the proof for a replay", func(t *testing.T) transport.StreamableHTTP {
			a, h := dpopAS(t)
			a.refuseProofs = true
			return transport.StreamableHTTP{URL: a.resource(), OAuthHandler: h, DPoP: &auth.DPoP{}}
		}, func(t *testing.T, err error) {
			assert.ErrorIs(t, err, auth.ErrDPoPProofRefused)
		}},
	}
	for _, r := range rows {
		t.Run(r.row, func(t *testing.T) {
			_, err := plugin.Connect(t.Context(), r.setup(t), plugin.WithConnectTimeout(time.Minute))
			require.Error(t, err)
			t.Log(err)
			assert.ErrorIs(t, err, plugin.ErrInternal)
			assert.NotErrorIs(t, err, plugin.ErrProtocolVersion)
			var rpc *jsonrpc.Error
			assert.False(t, errors.As(err, &rpc), "no server's JSON-RPC error: %#v", rpc)
			r.check(t, err)
		})
	}
}
