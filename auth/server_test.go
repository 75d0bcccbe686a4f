package auth_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/auth"
)

// This file is the loopback authorization server and protected MCP server
// that the tests of the authorization extensions run against. It checks
// what a real one checks (assertion signatures, audiences, expiry, jti
// reuse, DPoP proofs and their binding) and records every request, so that
// a test can say what went over the wire.

// testAS is an OAuth authorization server with a protected MCP endpoint at
// /mcp beside it. Set its fields before the first request.
type testAS struct {
	srv *httptest.Server

	grantTypes  []string // grant_types_supported
	authMethods []string // token_endpoint_auth_methods_supported
	signingAlgs []string // token_endpoint_auth_signing_alg_values_supported
	dpopAlgs    []string // dpop_signing_alg_values_supported; nil: no DPoP

	clientID     string
	clientSecret string           // checked when set (client_secret_basic or _post)
	clientKey    crypto.PublicKey // checks private_key_jwt assertions when set
	assertionKey crypto.PublicKey // checks jwt-bearer assertions when set

	// tokenNonce and resourceNonce, when set, are the DPoP nonces the token
	// endpoint and the MCP endpoint demand; rotate makes each challenge
	// ask for a new one, so that no nonce is ever accepted.
	tokenNonce, resourceNonce string
	rotateNonce               bool
	// refuseProofs makes the MCP endpoint refuse every DPoP proof as a
	// replay.
	refuseProofs bool
	// requiredScope, when set, is a scope that tools/call needs: the MCP
	// endpoint asks for it with a 403 insufficient_scope (a step-up);
	// forbid makes it answer every tools/call 403 with no challenge.
	requiredScope string
	forbid        bool
	// tokenAnswer, when set, answers token requests instead.
	tokenAnswer http.HandlerFunc
	expiresIn   int // of issued tokens; zero means an hour

	mu            sync.Mutex
	tokenRequests []tokenCall
	mcpRequests   []mcpCall
	assertionJTIs map[string]bool
	proofJTIs     map[string]bool
	replays       int
	issued        map[string]issuedToken
	nonceCount    int
}

// issuedToken is what the server knows of an access token it issued.
type issuedToken struct {
	jkt    string // the thumbprint of its DPoP key; "" for a bearer token
	scopes []string
}

// tokenCall is one request to /token as received.
type tokenCall struct {
	form   url.Values
	header http.Header
}

// mcpCall is one request to /mcp that carried a token.
type mcpCall struct {
	method string
	scheme string
	proof  string
}

func newTestAS(t *testing.T) *testAS {
	a := &testAS{
		clientID:      "svc-reports",
		assertionJTIs: map[string]bool{},
		proofJTIs:     map[string]bool{},
		issued:        map[string]issuedToken{},
	}
	mux := http.NewServeMux()
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"resource": a.resource(), "authorization_servers": []string{a.issuer()}, "scopes_supported": []string{"mcp:tools"}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		meta := map[string]any{
			"issuer":                                a.issuer(),
			"token_endpoint":                        a.tokenEndpoint(),
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 a.grantTypes,
			"token_endpoint_auth_methods_supported": a.authMethods,
		}
		if a.signingAlgs != nil {
			meta["token_endpoint_auth_signing_alg_values_supported"] = a.signingAlgs
		}
		if a.dpopAlgs != nil {
			meta["dpop_signing_alg_values_supported"] = a.dpopAlgs
		}
		writeJSON(w, meta)
	})
	mux.HandleFunc("/token", a.token)
	mux.Handle("/mcp", a.protect(pingServer()))
	return a
}

func (a *testAS) issuer() string        { return a.srv.URL }
func (a *testAS) tokenEndpoint() string { return a.srv.URL + "/token" }
func (a *testAS) resource() string      { return a.srv.URL + "/mcp" }

// calls returns copies of what the server recorded.
func (a *testAS) calls() ([]tokenCall, []mcpCall, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.tokenRequests), slices.Clone(a.mcpRequests), a.replays
}

// pingServer is a stateless go-sdk MCP server with one tool, "ping".
func pingServer() http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "ping", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
}

// oauthError answers a token request with an RFC 6749 §5.2 error.
func oauthError(w http.ResponseWriter, status int, code, description string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, `{"error":%q,"error_description":%q}`, code, description)
}

func (a *testAS) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "not a form")
		return
	}
	a.mu.Lock()
	a.tokenRequests = append(a.tokenRequests, tokenCall{form: r.PostForm, header: r.Header.Clone()})
	a.mu.Unlock()
	if a.tokenAnswer != nil {
		a.tokenAnswer(w, r)
		return
	}
	if !a.authenticateClient(w, r) {
		return
	}
	switch grant := r.PostForm.Get("grant_type"); {
	case grant == auth.GrantClientCredentials && slices.Contains(a.grantTypes, grant):
	case grant == auth.GrantJWTBearer && slices.Contains(a.grantTypes, grant):
		if _, err := a.verifyJWT(r.PostForm.Get("assertion"), a.assertionKey, a.issuer(), false); err != nil {
			oauthError(w, http.StatusBadRequest, "invalid_grant", err.Error())
			return
		}
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "not "+grant)
		return
	}
	if scope := r.PostForm.Get("scope"); strings.Contains(scope, "forbidden") {
		oauthError(w, http.StatusBadRequest, "invalid_scope", "scope not permitted")
		return
	}
	jkt := ""
	if proof := r.Header.Get("DPoP"); proof != "" && a.dpopAlgs != nil {
		var ok bool
		if jkt, ok = a.checkProof(w, proof, http.MethodPost, a.tokenEndpoint(), "", a.tokenNonce, http.StatusBadRequest); !ok {
			return
		}
	}
	access := rand.Text()
	a.mu.Lock()
	a.issued[access] = issuedToken{jkt: jkt, scopes: strings.Fields(r.PostForm.Get("scope"))}
	a.mu.Unlock()
	typ := "Bearer"
	if jkt != "" {
		typ = "DPoP"
	}
	expires := a.expiresIn
	if expires == 0 {
		expires = 3600
	}
	writeJSON(w, map[string]any{"access_token": access, "token_type": typ, "expires_in": expires})
}

// authenticateClient checks the client authentication the server is set
// up for and answers invalid_client (401) when it fails.
func (a *testAS) authenticateClient(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case a.clientKey != nil:
		if r.PostForm.Get("client_assertion_type") != auth.ClientAssertionJWT {
			oauthError(w, http.StatusUnauthorized, "invalid_client", "no client assertion")
			return false
		}
		claims, err := a.verifyJWT(r.PostForm.Get("client_assertion"), a.clientKey, a.issuer(), true)
		if err == nil && (claims.Issuer != a.clientID || claims.Subject != a.clientID) {
			err = fmt.Errorf("iss %q sub %q", claims.Issuer, claims.Subject)
		}
		if err != nil {
			oauthError(w, http.StatusUnauthorized, "invalid_client", err.Error())
			return false
		}
	case a.clientSecret != "":
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		if id != a.clientID || secret != a.clientSecret {
			oauthError(w, http.StatusUnauthorized, "invalid_client", "bad client credentials")
			return false
		}
	}
	return true
}

// verifyJWT checks an assertion as RFC 7523 §3 asks: signature, audience
// (the issuer, with or without a trailing slash), expiry, and for a client
// assertion (once) a jti that was never seen. A workload's JWT may be
// presented again while it lives: platforms hand out one for a while.
func (a *testAS) verifyJWT(token string, key crypto.PublicKey, audience string, once bool) (*jwt.Claims, error) {
	if key == nil {
		return nil, fmt.Errorf("no key to check assertions with")
	}
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.RS256, jose.PS256, jose.EdDSA})
	if err != nil {
		return nil, fmt.Errorf("malformed assertion: %v", err)
	}
	var claims jwt.Claims
	if err := parsed.Claims(key, &claims); err != nil {
		return nil, fmt.Errorf("bad signature: %v", err)
	}
	if err := claims.ValidateWithLeeway(jwt.Expected{AnyAudience: jwt.Audience{audience, audience + "/"}, Time: time.Now()}, 0); err != nil {
		return nil, fmt.Errorf("assertion rejected: %v", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if once {
		if claims.ID == "" || a.assertionJTIs[claims.ID] {
			return nil, fmt.Errorf("assertion jti replayed")
		}
		a.assertionJTIs[claims.ID] = true
	}
	return &claims, nil
}

// protect admits requests to next with a token this server issued: a bearer
// token in the Bearer scheme, a DPoP-bound one in the DPoP scheme with a
// proof that passes RFC 9449 §4.3 and §7 (and the nonce, if one is set).
func (a *testAS) protect(mcpHandler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		challenge := `Bearer resource_metadata="` + a.srv.URL + `/.well-known/oauth-protected-resource/mcp"`
		if a.dpopAlgs != nil {
			challenge = `DPoP algs="ES256", resource_metadata="` + a.srv.URL + `/.well-known/oauth-protected-resource/mcp"`
		}
		a.mu.Lock()
		tok, issued := a.issued[token]
		jkt := tok.jkt
		if token != "" {
			a.mcpRequests = append(a.mcpRequests, mcpCall{method: r.Method, scheme: scheme, proof: r.Header.Get("DPoP")})
		}
		a.mu.Unlock()
		if !issued {
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch call := r.Header.Get("Mcp-Method") == "tools/call"; {
			case a.forbid && call:
				http.Error(w, "forbidden", http.StatusForbidden)
			case a.requiredScope != "" && call && !slices.Contains(tok.scopes, a.requiredScope):
				w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+a.requiredScope+`"`)
				http.Error(w, "forbidden", http.StatusForbidden)
			default:
				mcpHandler.ServeHTTP(w, r)
			}
		})
		if jkt == "" {
			if !strings.EqualFold(scheme, "bearer") {
				http.Error(w, "a bearer token in another scheme", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if scheme != "DPoP" {
			w.Header().Set("WWW-Authenticate", `DPoP error="invalid_token", error_description="a DPoP-bound token sent as a bearer token"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		if a.refuseProofs {
			w.Header().Set("WWW-Authenticate", `DPoP error="invalid_dpop_proof", error_description="jti replayed"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		got, ok := a.checkProofFor(w, r.Header.Get("DPoP"), r.Method, a.resource(), token, body, a.resourceNonce, http.StatusUnauthorized)
		if !ok {
			return
		}
		if got != jkt {
			w.Header().Set("WWW-Authenticate", `DPoP error="invalid_dpop_proof", error_description="the proof's key is not the token's"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (a *testAS) checkProof(w http.ResponseWriter, proof, method, target, token, nonce string, status int) (string, bool) {
	return a.checkProofFor(w, proof, method, target, token, nil, nonce, status)
}

// checkProofFor verifies a DPoP proof and returns its key's thumbprint; on
// failure it answers with status (400 at the token endpoint, 401 at the
// resource) and the RFC 9449 error.
func (a *testAS) checkProofFor(w http.ResponseWriter, proof, method, target, token string, body []byte, nonce string, status int) (string, bool) {
	fail := func(code, description string) (string, bool) {
		if status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`DPoP error=%q, error_description=%q`, code, description))
			http.Error(w, description, status)
		} else {
			oauthError(w, status, code, description)
		}
		return "", false
	}
	sig, err := jose.ParseSignedCompact(proof, []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.RS256, jose.PS256, jose.EdDSA})
	if err != nil || len(sig.Signatures) != 1 {
		return fail("invalid_dpop_proof", "not a JWS")
	}
	hdr := sig.Signatures[0].Protected
	if hdr.ExtraHeaders[jose.HeaderType] != "dpop+jwt" || hdr.JSONWebKey == nil || !hdr.JSONWebKey.IsPublic() {
		return fail("invalid_dpop_proof", "bad header")
	}
	payload, err := sig.Verify(hdr.JSONWebKey)
	if err != nil {
		return fail("invalid_dpop_proof", "bad signature")
	}
	var claims struct {
		JTI           string `json:"jti"`
		HTM           string `json:"htm"`
		HTU           string `json:"htu"`
		IAT           int64  `json:"iat"`
		ATH           string `json:"ath"`
		Nonce         string `json:"nonce"`
		ContentDigest string `json:"content_digest"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return fail("invalid_dpop_proof", "bad claims")
	}
	if claims.HTM != method || claims.HTU != target || claims.JTI == "" || time.Since(time.Unix(claims.IAT, 0)).Abs() > time.Minute {
		return fail("invalid_dpop_proof", "htm, htu, jti or iat")
	}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		if claims.ATH != base64.RawURLEncoding.EncodeToString(sum[:]) {
			return fail("invalid_dpop_proof", "ath")
		}
		sum = sha256.Sum256(body)
		if claims.ContentDigest != "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":" {
			return fail("invalid_dpop_proof", "content_digest")
		}
	} else if claims.ATH != "" || claims.ContentDigest != "" {
		return fail("invalid_dpop_proof", "ath or content_digest at the token endpoint")
	}
	a.mu.Lock()
	replayed := a.proofJTIs[claims.JTI]
	a.proofJTIs[claims.JTI] = true
	if replayed {
		a.replays++
	}
	current := nonce
	if nonce != "" && a.rotateNonce {
		a.nonceCount++
		current = fmt.Sprintf("%s-%d", nonce, a.nonceCount)
	}
	a.mu.Unlock()
	if replayed {
		return fail("invalid_dpop_proof", "jti replayed")
	}
	if nonce != "" && (a.rotateNonce || claims.Nonce != nonce) {
		w.Header().Set("DPoP-Nonce", current)
		return fail("use_dpop_nonce", "a nonce is required")
	}
	thumb, err := hdr.JSONWebKey.Thumbprint(crypto.SHA256)
	if err != nil {
		return fail("invalid_dpop_proof", "no thumbprint")
	}
	return base64.RawURLEncoding.EncodeToString(thumb), true
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
