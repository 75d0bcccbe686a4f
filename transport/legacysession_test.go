package transport

import (
	"bytes"
	"context"
	"net/http"
	neturl "net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A POST that names a session (Mcp-Session-Id, which only an older
// revision's session sends) refused because the server no longer knows
// it, with 404 as the spec says or with the TypeScript SDK v1's 400 "No
// valid session ID provided", fails with ErrNotSent, which ends the session
// so that a new one is initialized. Any other 400, and a 404 without a
// session, still fail the call alone.
func TestLostSessionEndsTheSession(t *testing.T) {
	url := statusServer(t)
	rt, _ := newStandAlone(t, false)
	send := func(session, code, body string) (*http.Response, error) {
		q := neturl.Values{"code": {code}, "body": {body}, "type": {"application/json"}}
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url+"?"+q.Encode(), bytes.NewReader([]byte(aCall)))
		require.NoError(t, err)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		return rt.RoundTrip(req)
	}
	tsBody := `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`
	for _, c := range []struct{ code, body string }{{"404", "Session not found"}, {"400", tsBody}} {
		resp, err := send("s-1", c.code, c.body)
		require.Error(t, err, c.code)
		assert.Nil(t, resp)
		assert.ErrorIs(t, err, ErrNotSent)
		assert.Contains(t, err.Error(), "the server no longer knows the session")
	}
	for _, c := range []struct{ session, code, body string }{
		{"s-1", "400", `{"jsonrpc":"2.0","error":{"code":-32602,"message":"bad arguments"},"id":7}`},
		{"", "400", tsBody},
		{"", "404", "Not found"},
	} {
		resp, err := send(c.session, c.code, c.body)
		require.NoError(t, err, c)
		_, _, msg := rpcFailure(t, resp)
		assert.Contains(t, msg, "HTTP "+c.code, c)
	}
}
