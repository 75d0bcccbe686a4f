package transport

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/cuca-go/mcpconnector/internal/core/httppool"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResponseBodiesAreBounded(t *testing.T) {
	const limit = 1024
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if ct := r.URL.Query().Get("type"); ct != "" {
			w.Header().Set("Content-Type", ct)
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		if r.URL.Query().Get("length") != "" {
			w.Header().Set("Content-Length", strconv.Itoa(n))
		}
		if code, _ := strconv.Atoi(r.URL.Query().Get("code")); code != 0 {
			w.WriteHeader(code)
		}
		_, _ = io.WriteString(w, strings.Repeat("x", n))
	}))
	defer srv.Close()
	defer httppool.CloseIdle()
	rt := limitRoundTripper{base: http.DefaultTransport, limit: limit}
	do := func(query string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, srv.URL+"?"+query, bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`)))
		require.NoError(t, err)
		resp, err := rt.RoundTrip(req)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		return resp, body
	}
	refused := func(t *testing.T, resp *http.Response, body []byte) {
		t.Helper()
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		var msg struct {
			ID    int `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		require.NoError(t, json.Unmarshal(body, &msg), "%s", body)
		assert.Equal(t, 7, msg.ID, "the refusal answers the same request")
		assert.Equal(t, -32603, msg.Error.Code)
		assert.Contains(t, msg.Error.Message, ErrMessageTooLarge.Error())
	}

	t.Run("at the limit passes", func(t *testing.T) {
		resp, body := do("n=1024")
		assert.Len(t, body, limit)
		assert.EqualValues(t, limit, resp.ContentLength)
	})
	t.Run("over the limit, streamed", func(t *testing.T) {
		resp, body := do("n=1025")
		refused(t, resp, body)
	})
	t.Run("over the limit, by Content-Length", func(t *testing.T) {
		resp, body := do("n=100000&length=1")
		refused(t, resp, body)
	})
	t.Run("an error status keeps its status and loses its body", func(t *testing.T) {
		resp, body := do("n=5000&code=500")
		assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
		assert.Empty(t, body)
	})
	t.Run("event streams pass through", func(t *testing.T) {
		_, body := do("n=5000&type=text/event-stream")
		assert.Len(t, body, 5000)
	})
}

func TestStreamableHTTPBoundsEveryMessage(t *testing.T) {
	for name, h := range map[string]StreamableHTTP{
		"plain":       {URL: "http://127.0.0.1:1/mcp"},
		"with header": {URL: "http://127.0.0.1:1/mcp", Header: http.Header{"X-Api-Key": {"k"}}},
		"own client":  {URL: "http://127.0.0.1:1/mcp", HTTPClient: &http.Client{}},
	} {
		t.Run(name, func(t *testing.T) {
			tr, err := h.Open(nil)
			require.NoError(t, err)
			st := tr.(*httpTransport).sdk
			assert.Equal(t, MaxMessageBytes, st.MaxEventSize, "go-sdk would leave 0 unbounded")
			assert.IsType(t, limitRoundTripper{}, st.HTTPClient.Transport)
		})
	}
}
