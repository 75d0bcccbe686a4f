package transport

import (
	"fmt"
	"net/http"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/auth"
)

// checker is an OAuth handler that can tell a configuration that cannot work
// before the first request, as the handlers of package auth can.
type checker interface{ Check() error }

// wireAuth is the one hook between the transport and authorization: it
// checks the handler of one connection, and for [StreamableHTTP.DPoP] lets
// the DPoP bind the client and handler (see auth.DPoP.Bind).
func (h StreamableHTTP) wireAuth(client *http.Client, oauth sdkauth.OAuthHandler, logger *zap.Logger) (*http.Client, sdkauth.OAuthHandler, error) {
	if c, ok := oauth.(checker); ok {
		if err := c.Check(); err != nil {
			return nil, nil, err
		}
	}
	if h.DPoP == nil {
		return client, oauth, nil
	}
	if h.OAuthHandler == nil {
		return nil, nil, fmt.Errorf("transport: streamable http %q: DPoP needs an OAuthHandler, whose tokens it binds", h.URL)
	}
	return h.DPoP.Bind(client, oauth, logger)
}

// The authorization handlers, DPoP and keys live in package auth. The names
// below keep code written against package transport compiling.

// ClientCredentialsJWT is [auth.ClientCredentialsJWT].
//
// Deprecated: use [auth.ClientCredentialsJWT].
type ClientCredentialsJWT = auth.ClientCredentialsJWT

// EnterpriseAuth is [auth.EnterpriseAuth].
//
// Deprecated: use [auth.EnterpriseAuth].
type EnterpriseAuth = auth.EnterpriseAuth

// WorkloadIdentity is [auth.WorkloadIdentity].
//
// Deprecated: use [auth.WorkloadIdentity].
type WorkloadIdentity = auth.WorkloadIdentity

// DPoP is [auth.DPoP]; [StreamableHTTP.DPoP] takes one.
//
// Deprecated: use [auth.DPoP].
type DPoP = auth.DPoP

// SigningKey is [auth.SigningKey].
//
// Deprecated: use [auth.SigningKey].
type SigningKey = auth.SigningKey

// TokenError is [auth.TokenError].
//
// Deprecated: use [auth.TokenError].
type TokenError = auth.TokenError

// ErrBadTokenResponse is [auth.ErrBadTokenResponse].
//
// Deprecated: use [auth.ErrBadTokenResponse].
var ErrBadTokenResponse = auth.ErrBadTokenResponse

// ErrDPoPNonce is [auth.ErrDPoPNonce].
//
// Deprecated: use [auth.ErrDPoPNonce].
var ErrDPoPNonce = auth.ErrDPoPNonce

// ErrDPoPProofRefused is [auth.ErrDPoPProofRefused].
//
// Deprecated: use [auth.ErrDPoPProofRefused].
var ErrDPoPProofRefused = auth.ErrDPoPProofRefused
