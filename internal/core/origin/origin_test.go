package origin

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func request(t *testing.T, u string) *http.Request {
	t.Helper()
	r, err := http.NewRequest(http.MethodGet, u, nil)
	require.NoError(t, err)
	return r
}

func TestCheckRedirectKeepsToTheFirstRequestsOrigin(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		ok       bool
	}{
		{"https://example.com/mcp", "https://example.com/v2/mcp", true},
		{"https://example.com/mcp", "https://EXAMPLE.com:443/mcp", true},
		{"http://localhost:8080/mcp", "http://localhost:8080/mcp/", true},
		{"https://example.com/mcp", "https://example.com:8443/mcp", false},
		{"https://example.com/mcp", "https://evil.example.com/mcp", false},
		{"https://example.com/mcp", "http://example.com/mcp", false},
		{"https://example.com:8443/mcp", "http://example.com:8443/mcp", false},
		{"http://example.com/mcp", "https://example.com/mcp", false},
		{"https://example.com/mcp", "https://example.org/mcp", false},
	} {
		err := CheckRedirect(request(t, tc.to), []*http.Request{request(t, tc.from)})
		if tc.ok {
			assert.NoError(t, err, "%s → %s", tc.from, tc.to)
		} else {
			assert.ErrorIs(t, err, ErrRedirectRefused, "%s → %s", tc.from, tc.to)
		}
	}
	via := make([]*http.Request, maxRedirects)
	for i := range via {
		via[i] = request(t, "https://example.com/mcp")
	}
	assert.Error(t, CheckRedirect(request(t, "https://example.com/mcp"), via), "ten redirects are the most")
}

func TestClientRunsThePolicyBeforeItsOwn(t *testing.T) {
	calls := 0
	c := Client(&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { calls++; return nil }})
	from := []*http.Request{request(t, "https://example.com/")}
	assert.ErrorIs(t, c.CheckRedirect(request(t, "http://example.com/"), from), ErrRedirectRefused)
	assert.Zero(t, calls)
	assert.NoError(t, c.CheckRedirect(request(t, "https://example.com/a"), from))
	assert.Equal(t, 1, calls)
	assert.NotNil(t, Client(nil).CheckRedirect)
}

func TestSameAs(t *testing.T) {
	u, _ := url.Parse("https://example.com/x")
	assert.True(t, SameAs("https://example.com:443/mcp", u))
	assert.False(t, SameAs("http://example.com/mcp", u))
	assert.False(t, SameAs("::not a url", u))
}
