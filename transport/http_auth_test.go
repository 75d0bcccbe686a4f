package transport

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// protectedMCP is a stateless go-sdk MCP server with one tool, "ping",
// behind go-sdk's bearer token check; verify decides which tokens pass.
func protectedMCP(verify auth.TokenVerifier, metadataURL string) http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "ping", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true})
	return auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: metadataURL})(h)
}

// connectAndPing connects over tr at MCP 2026-07-28 and calls "ping".
func connectAndPing(t *testing.T, tr StreamableHTTP) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	mt, err := tr.Open(nil)
	if err != nil {
		return err
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	session, err := c.Connect(ctx, mt, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		return err
	}
	defer func() { _ = session.Close() }()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "ping"})
	if err != nil {
		return err
	}
	require.Len(t, res.Content, 1)
	assert.Equal(t, "pong", res.Content[0].(*mcp.TextContent).Text)
	return nil
}

func TestBearerTokenIsSentAndARefusalSaysSo(t *testing.T) {
	const good = "static-token-42"
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if token != good {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	srv := httptest.NewServer(protectedMCP(verify, ""))
	defer srv.Close()

	require.NoError(t, connectAndPing(t, StreamableHTTP{URL: srv.URL, BearerToken: good}))

	err := connectAndPing(t, StreamableHTTP{URL: srv.URL, BearerToken: "stale-token-17"})
	require.Error(t, err)
	assert.ErrorIs(t, err, errBearerRefused)
	assert.Contains(t, err.Error(), "HTTP 401")
	assert.NotContains(t, err.Error(), "stale-token-17", "the token never appears in errors")

	err = connectAndPing(t, StreamableHTTP{URL: srv.URL})
	require.Error(t, err, "no token, no access")
}

func TestOnlyOneWayToAuthorizeMayBeSet(t *testing.T) {
	handler := staticBearer{}
	withAuthHeader := http.Header{"Authorization": {"Bearer x"}}
	for name, tr := range map[string]StreamableHTTP{
		"handler and token":  {URL: "http://127.0.0.1:1/mcp", OAuthHandler: handler, BearerToken: "t"},
		"token and header":   {URL: "http://127.0.0.1:1/mcp", BearerToken: "t", Header: withAuthHeader},
		"handler and header": {URL: "http://127.0.0.1:1/mcp", OAuthHandler: handler, Header: withAuthHeader},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tr.Open(nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "set only one of")
			assert.NotContains(t, err.Error(), "Bearer x")
		})
	}
	_, err := StreamableHTTP{URL: "http://127.0.0.1:1/mcp", Header: withAuthHeader}.Open(nil)
	assert.NoError(t, err, "an Authorization header alone is fine")
}

// authServer is a loopback OAuth 2.1 authorization server with a
// pre-registered client, in front of a protected MCP endpoint. Its access
// tokens live one second, which the oauth2 token source already treats as
// expired, so every later request refreshes.
type authServer struct {
	srv *httptest.Server

	mu         sync.Mutex
	challenges map[string]string // code → PKCE code_challenge
	valid      map[string]bool   // access tokens
	authorized int               // visits to /authorize
	grants     []string          // grant_type of each /token request
	next       int
}

const (
	testClientID     = "mcpconnector-test"
	testClientSecret = "client-secret"
	testRedirect     = "http://127.0.0.1:1/callback"
)

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{challenges: map[string]string{}, valid: map[string]bool{}}
	mux := http.NewServeMux()
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	base := a.srv.URL
	prm := base + "/.well-known/oauth-protected-resource/mcp"
	mux.Handle("/mcp", protectedMCP(a.verify, prm))
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(
		&oauthex.ProtectedResourceMetadata{Resource: base + "/mcp", AuthorizationServers: []string{base}}))
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{
			"issuer":                                base,
			"authorization_endpoint":                base + "/authorize",
			"token_endpoint":                        base + "/token",
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_post"},
		})
	})
	mux.HandleFunc("/authorize", a.authorize)
	mux.HandleFunc("/token", a.token)
	return a
}

func (a *authServer) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.valid[token] {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{Expiration: time.Now().Add(time.Minute)}, nil
}

// authorize approves at once, as a user would, and redirects with a code.
func (a *authServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("client_id") != testClientID || q.Get("code_challenge_method") != "S256" || q.Get("redirect_uri") != testRedirect {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	a.authorized++
	a.next++
	code := fmt.Sprintf("code-%d", a.next)
	a.challenges[code] = q.Get("code_challenge")
	a.mu.Unlock()
	http.Redirect(w, r, testRedirect+"?"+url.Values{"code": {code}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
}

// token exchanges a code (checking PKCE) or a refresh token.
func (a *authServer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.PostForm.Get("client_id") != testClientID || r.PostForm.Get("client_secret") != testClientSecret {
		http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	grant := r.PostForm.Get("grant_type")
	a.grants = append(a.grants, grant)
	switch grant {
	case "authorization_code":
		challenge, ok := a.challenges[r.PostForm.Get("code")]
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		delete(a.challenges, r.PostForm.Get("code"))
	case "refresh_token":
		if r.PostForm.Get("refresh_token") != "refresh-1" {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
	default:
		http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
		return
	}
	a.next++
	access := fmt.Sprintf("access-%d", a.next)
	a.valid[access] = true
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 1, "refresh_token": "refresh-1"})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// followRedirect plays the user's browser: it opens the authorization URL
// and reads the code from the redirect instead of following it.
func followRedirect(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args.URL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.Query().Get("code") == "" {
		return nil, errors.New("no code in the redirect")
	}
	return &auth.AuthorizationResult{Code: loc.Query().Get("code"), State: loc.Query().Get("state")}, nil
}

func TestOAuthHandlerAuthorizesWithPKCEAndRefreshesTheToken(t *testing.T) {
	a := newAuthServer(t)
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              testRedirect,
		AuthorizationCodeFetcher: followRedirect,
		PreregisteredClient: &oauthex.ClientCredentials{
			ClientID:         testClientID,
			ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: testClientSecret},
		},
	})
	require.NoError(t, err)

	require.NoError(t, connectAndPing(t, StreamableHTTP{URL: a.srv.URL + "/mcp", OAuthHandler: handler}))

	a.mu.Lock()
	defer a.mu.Unlock()
	assert.Equal(t, 1, a.authorized, "one authorization, on the first 401")
	require.NotEmpty(t, a.grants)
	assert.Equal(t, "authorization_code", a.grants[0])
	assert.Contains(t, a.grants[1:], "refresh_token", "the expired token was refreshed, not re-authorized")
}
