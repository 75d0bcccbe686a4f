package interop

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/auth"
	"github.com/cuca-go/mcpconnector/internal/fixture/legacyserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// A whole OAuth flow on an older revision's session: a go-sdk server that
// serves only the revisions before 2026-07-28, protected by a loopback
// authorization server, and auth.ClientCredentialsJWT in the transport's
// OAuthHandler. The first request is refused 401; the handler finds the
// authorization server through the resource's metadata (RFC 9728, RFC
// 8414), gets a token with a signed client assertion, and every later
// request carries it: server/discover again (refused, the server speaks no
// 2026-07-28), initialize, the calls.
func TestLegacyOAuthWithAnAuthorizationServer(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	as := &loopbackAS{clientID: "svc-older", key: pub, issued: map[string]bool{}}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	as.url = srv.URL
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		writeJSONBody(w, map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{srv.URL}, "scopes_supported": []string{"mcp:tools"}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		writeJSONBody(w, map[string]any{
			"issuer": srv.URL, "token_endpoint": srv.URL + "/token", "response_types_supported": []string{"code"},
			"grant_types_supported":                            []string{"client_credentials"},
			"token_endpoint_auth_methods_supported":            []string{"private_key_jwt"},
			"token_endpoint_auth_signing_alg_values_supported": []string{"EdDSA"},
		})
	})
	mux.HandleFunc("/token", as.token)
	s := legacyserver.New()
	mux.Handle("/mcp", as.protect(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))

	h := &auth.ClientCredentialsJWT{ClientID: as.clientID, Key: auth.SigningKey{Signer: priv}, Scopes: []string{"mcp:tools"}}
	ctx := t.Context()
	p, err := plugin.Connect(ctx, transport.StreamableHTTP{URL: srv.URL + "/mcp", OAuthHandler: h}, plugin.WithLegacyFallback())
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	assert.Equal(t, actors.LegacyRevisions()[0], p.ProtocolVersion())
	assert.Equal(t, "echo: hi", legacyText(t, p, "echo", map[string]any{"text": "hi"}))
	assert.Equal(t, "5", legacyText(t, p, "add", map[string]any{"a": 2, "b": 3}))
	require.NoError(t, p.Close())

	as.mu.Lock()
	defer as.mu.Unlock()
	assert.Empty(t, as.tokenErrors, "every token request was valid")
	assert.Equal(t, 1, as.tokens, "one grant, its token used for the rest")
	assert.Equal(t, 1, as.refused, "only the first request went without a token")
	assert.Contains(t, as.methods, "initialize", "initialize carried the token")
	assert.Contains(t, as.methods, "tools/call")
}

// loopbackAS is an OAuth authorization server for the client credentials
// grant with private_key_jwt assertions signed by key (Ed25519), and the
// protection of an MCP endpoint by its tokens.
type loopbackAS struct {
	url      string
	clientID string
	key      ed25519.PublicKey

	mu          sync.Mutex
	issued      map[string]bool
	tokens      int
	tokenErrors []string
	refused     int
	methods     []string // the JSON-RPC methods of the POSTs that carried a token
}

func (a *loopbackAS) token(w http.ResponseWriter, r *http.Request) {
	err := a.checkTokenRequest(r)
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil {
		a.tokenErrors = append(a.tokenErrors, err.Error())
		w.WriteHeader(http.StatusBadRequest)
		writeJSONBody(w, map[string]any{"error": "invalid_client", "error_description": err.Error()})
		return
	}
	a.tokens++
	access := rand.Text()
	a.issued[access] = true
	writeJSONBody(w, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600})
}

// checkTokenRequest checks the grant, the resource, and the client
// assertion: its signature, issuer, subject, audience and expiry.
func (a *loopbackAS) checkTokenRequest(r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		return err
	}
	f := r.PostForm
	switch {
	case f.Get("grant_type") != "client_credentials":
		return errors.New("grant_type " + f.Get("grant_type"))
	case f.Get("resource") != a.url+"/mcp":
		return errors.New("resource " + f.Get("resource"))
	case f.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer":
		return errors.New("client_assertion_type " + f.Get("client_assertion_type"))
	}
	parts := strings.Split(f.Get("client_assertion"), ".")
	if len(parts) != 3 {
		return errors.New("the assertion is not a JWS")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !ed25519.Verify(a.key, []byte(parts[0]+"."+parts[1]), sig) {
		return errors.New("the assertion's signature does not verify")
	}
	var header struct{ Alg string }
	var claims struct {
		Iss, Sub string
		Aud      json.RawMessage
		Exp      int64
	}
	for i, v := range []any{&header, &claims} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, v); err != nil {
			return err
		}
	}
	var aud []string
	if json.Unmarshal(claims.Aud, &aud) != nil {
		var one string
		_ = json.Unmarshal(claims.Aud, &one)
		aud = []string{one}
	}
	switch {
	case header.Alg != "EdDSA":
		return errors.New("alg " + header.Alg)
	case claims.Iss != a.clientID || claims.Sub != a.clientID:
		return errors.New("iss or sub is not the client")
	case !slices.Contains(aud, a.url):
		return errors.New("the audience is not the issuer")
	case time.Unix(claims.Exp, 0).Before(time.Now()):
		return errors.New("the assertion has expired")
	}
	return nil
}

// protect answers a request without a token it issued 401, with the
// challenge that names the resource's metadata.
func (a *loopbackAS) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		a.mu.Lock()
		ok := a.issued[token]
		if !ok {
			a.refused++
		}
		a.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+a.url+`/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodPost {
			if body, err := readAndRestore(r); err == nil {
				var msg struct{ Method string }
				if json.Unmarshal(body, &msg) == nil && msg.Method != "" {
					a.mu.Lock()
					a.methods = append(a.methods, msg.Method)
					a.mu.Unlock()
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

func writeJSONBody(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// readAndRestore reads r's body and puts it back for the next handler.
func readAndRestore(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, err
}
