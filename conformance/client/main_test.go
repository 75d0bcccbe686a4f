package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// required2026 is what the suite's requirement set 2026-07-28 requires of a
// client (conformance list --client --requirements 2026-07-28).
var required2026 = []string{
	"tools_call", "request-metadata",
	"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
	"auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
	"auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
	"auth/pre-registration", "auth/resource-mismatch", "auth/offline-access-scope",
	"auth/offline-access-not-supported", "auth/authorization-server-migration",
	"auth/iss-supported", "auth/iss-not-advertised", "auth/iss-supported-missing",
	"auth/iss-wrong-issuer", "auth/iss-unexpected", "auth/iss-normalized", "auth/metadata-issuer-mismatch",
	"sep-2322-client-request-state", "http-standard-headers", "http-custom-headers",
	"http-invalid-tool-headers", "json-schema-ref-no-deref",
}

func TestEveryRequiredScenarioHasADriver(t *testing.T) {
	require.Len(t, required2026, 32)
	for _, name := range required2026 {
		assert.Contains(t, scenarios, name)
	}
}

// unscored2026 are the scenarios the suite runs beside the requirements
// without scoring them; expected-failures.yml lists none of them.
var unscored2026 = []string{
	"json-schema-2020-12-preservation", "auth/client-credentials-basic", "auth/client-credentials-jwt",
	"auth/enterprise-managed-authorization", "auth/dpop", "auth/dpop-nonce", "auth/wif-jwt-bearer",
}

func TestEveryUnscoredScenarioHasADriverAndNoneIsExpectedToFail(t *testing.T) {
	require.Len(t, unscored2026, 7)
	for _, name := range unscored2026 {
		assert.Contains(t, scenarios, name)
	}
	b, err := os.ReadFile("../expected-failures.yml")
	require.NoError(t, err)
	var listed []string
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") && strings.HasPrefix(strings.TrimSpace(line), "- ") {
			listed = append(listed, line)
		}
	}
	assert.Empty(t, listed)
	assert.Contains(t, string(b), "\nclient: []\n", "the suite takes an empty list, not a missing one")
}

// serve runs s over stateless Streamable HTTP and returns a scenario env
// pointing at it.
func serve(t *testing.T, s *mcp.Server, suiteContext map[string]any) *scenarioEnv {
	srv := testserver.NewHTTPServer(s)
	t.Cleanup(srv.Close)
	return &scenarioEnv{name: t.Name(), serverURL: srv.URL, context: suiteContext, logger: zap.NewNop()}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// recorder keeps the arguments of every tools/call a test server answers.
type recorder struct {
	mu    sync.Mutex
	calls map[string][]json.RawMessage
}

func (r *recorder) add(s *mcp.Server, name string, handle func(*mcp.CallToolRequest) *mcp.CallToolResult) {
	s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r.mu.Lock()
			if r.calls == nil {
				r.calls = map[string][]json.RawMessage{}
			}
			r.calls[name] = append(r.calls[name], req.Params.Arguments)
			r.mu.Unlock()
			return handle(req), nil
		})
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func TestToolsCallGoesThroughTheHook(t *testing.T) {
	var rec recorder
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	rec.add(s, "add_numbers", func(*mcp.CallToolRequest) *mcp.CallToolResult { return text("8") })
	require.NoError(t, runToolsCall(testContext(t), serve(t, s, nil)))
	require.Len(t, rec.calls["add_numbers"], 1)
	assert.JSONEq(t, `{"a":5,"b":3}`, string(rec.calls["add_numbers"][0]))

	empty := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	assert.ErrorContains(t, runToolsCall(testContext(t), serve(t, empty, nil)), `"add_numbers" not discovered`)
}

func TestCustomHeadersMakesTheCallsOfTheSuitesContext(t *testing.T) {
	var rec recorder
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	rec.add(s, "one", func(*mcp.CallToolRequest) *mcp.CallToolResult { return text("ok") })
	var suiteContext map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"toolCalls":[
		{"name":"one","arguments":{"region":"us-west1","verbose":null}},
		{"name":"one","arguments":{"priority":1}}]}`), &suiteContext))
	require.NoError(t, runCustomHeaders(testContext(t), serve(t, s, suiteContext)))
	require.Len(t, rec.calls["one"], 2)
	assert.JSONEq(t, `{"region":"us-west1","verbose":null}`, string(rec.calls["one"][0]))
	assert.JSONEq(t, `{"priority":1}`, string(rec.calls["one"][1]))
}

func TestRequestStateDrivesInputRequiredWithTheOptIn(t *testing.T) {
	var rec recorder
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	confirm := mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Confirm?"}}
	rec.add(s, "test_mrtr_echo_state", func(req *mcp.CallToolRequest) *mcp.CallToolResult {
		if req.Params.InputResponses == nil {
			return &mcp.CallToolResult{InputRequests: confirm, RequestState: "opaque"}
		}
		return text("state " + req.Params.RequestState)
	})
	rec.add(s, "test_mrtr_no_state", func(req *mcp.CallToolRequest) *mcp.CallToolResult {
		if req.Params.InputResponses == nil {
			return &mcp.CallToolResult{InputRequests: confirm}
		}
		return text("state " + req.Params.RequestState)
	})
	for _, name := range []string{"test_mrtr_unrelated", "test_mrtr_no_result_type"} {
		rec.add(s, name, func(*mcp.CallToolRequest) *mcp.CallToolResult { return text("ok") })
	}
	require.NoError(t, runRequestState(testContext(t), serve(t, s, nil)))
	assert.Len(t, rec.calls["test_mrtr_echo_state"], 2, "first round, then the retry")
	assert.Len(t, rec.calls["test_mrtr_no_state"], 2)
	assert.Len(t, rec.calls["test_mrtr_unrelated"], 1)
}

func TestFetchCodeReadsTheRedirectInsteadOfFollowingIt(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("deny") != "" {
			http.Redirect(w, r, redirectURL+"?error=access_denied&state=s", http.StatusFound)
			return
		}
		http.Redirect(w, r, redirectURL+"?code=c0de&state=s&iss=http%3A%2F%2Fissuer", http.StatusFound)
	}))
	defer srv.Close()
	res, err := fetchCode(testContext(t), &sdkauth.AuthorizationArgs{URL: srv.URL + "/authorize"})
	require.NoError(t, err)
	assert.Equal(t, &sdkauth.AuthorizationResult{Code: "c0de", State: "s", Iss: "http://issuer"}, res)

	_, err = fetchCode(testContext(t), &sdkauth.AuthorizationArgs{URL: srv.URL + "/authorize?deny=1"})
	assert.ErrorContains(t, err, "access_denied")
}
