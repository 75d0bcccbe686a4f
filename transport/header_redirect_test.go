package transport

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHeadersGoOnlyToTheEndpointsHost(t *testing.T) {
	var got []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = append(got, r.Header.Clone()) }))
	defer srv.Close()
	defer http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	rt := headerRoundTripper{base: http.DefaultTransport, header: http.Header{"X-Api-Key": {"k"}}, host: endpointHost(srv.URL + "/mcp")}
	for _, target := range []string{srv.URL + "/mcp", "http://localhost:" + u.Port() + "/elsewhere"} {
		req, err := http.NewRequest(http.MethodPost, target, nil)
		require.NoError(t, err)
		resp, err := rt.RoundTrip(req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
	}
	require.Len(t, got, 2)
	assert.Equal(t, "k", got[0].Get("X-Api-Key"), "the endpoint gets the header")
	assert.Empty(t, got[1].Get("X-Api-Key"), "another host (a redirect target) does not")
}
