package transport

import (
	"fmt"
	"net/http"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"go.uber.org/zap"
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
