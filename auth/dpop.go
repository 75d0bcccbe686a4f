package auth

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"go.uber.org/zap"
	"golang.org/x/oauth2"
)

// DPoP sender-constrains the access tokens of any grant (RFC 9449; MCP's DPoP
// extension, SEP-1932): the authorization server binds each token to this
// client's key, and every request that carries the token also carries a
// fresh proof, signed with that key, of the request's method and URL, of the
// token (ath) and of the body (content_digest). A stolen token is useless
// without the key.
//
// Set it in transport.StreamableHTTP.DPoP beside an OAuthHandler, or wire it
// in yourself with [DPoP.Bind]. The handler's token requests must carry
// proofs too, so that the tokens come back bound: the handlers of this
// package ([ClientCredentialsJWT], [EnterpriseAuth], [WorkloadIdentity]) add
// them by themselves, and any other handler gets [DPoP.HTTPClient] as its
// HTTP client, e.g. go-sdk's authorization code handler:
//
//	d := &auth.DPoP{}
//	h, err := sdkauth.NewAuthorizationCodeHandler(&sdkauth.AuthorizationCodeHandlerConfig{
//		Client: d.HTTPClient(nil), // ...
//	})
//	t := transport.StreamableHTTP{URL: u, OAuthHandler: h, DPoP: d}
//
// A token the authorization server returns as a Bearer token (it does not do
// DPoP) is sent as one; the first such token is logged as a warning.
//
// Nonces (RFC 9449 §8, §9): a use_dpop_nonce challenge, from the token
// endpoint (400) or from the MCP server (401), is answered by sending the
// request again, once, with the server's nonce in a new proof; the nonce is
// kept per origin for the requests after it. A second challenge in a row
// fails the request with [ErrDPoPNonce]. Every proof has its own jti; none is
// ever sent twice. An MCP server that refuses a proof (invalid_dpop_proof,
// e.g. taken for a replay) fails the request with [ErrDPoPProofRefused]:
// another token, bound to the same key, would not help.
//
// One DPoP value serves any number of transports; it must not be copied
// after first use.
type DPoP struct {
	// Key signs the proofs; nil means a P-256 key made for this DPoP value
	// on first use, which lives as long as it (and so do the tokens bound
	// to it). A Key's File is read once.
	Key *SigningKey

	once   sync.Once
	signer jose.Signer
	err    error

	mu     sync.Mutex
	nonces map[string]string // origin → the last nonce it gave
}

// ErrDPoPNonce is wrapped by the error of a request that a server answered
// with a second use_dpop_nonce challenge right after the retry that carried
// the nonce it had given.
var ErrDPoPNonce = errors.New("auth: DPoP: the server refused the nonce it had just given")

// Check reports a configuration that cannot work, before any request;
// transport's StreamableHTTP.Open calls it.
func (d *DPoP) Check() error {
	if d.Key == nil {
		return nil
	}
	if err := d.Key.check(); err != nil {
		return fmt.Errorf("auth: DPoP: %w", err)
	}
	return nil
}

// proofSigner loads the key and makes the one signer of every proof: typ
// dpop+jwt, the public key in the jwk header.
func (d *DPoP) proofSigner() (jose.Signer, error) {
	d.once.Do(func() {
		var key *jwtKey
		if d.Key != nil {
			key, d.err = d.Key.load()
		} else {
			key, d.err = newEphemeralKey()
		}
		if d.err != nil {
			return
		}
		d.signer, d.err = key.newSigner(signOptions{typ: "dpop+jwt", embedJWK: true})
	})
	return d.signer, d.err
}

// proof signs a DPoP proof for method and target (its query and fragment
// dropped, RFC 9449 §4.2). accessToken, if set, is bound by ath; body, if
// non-nil, by content_digest (MCP's DPoP extension).
func (d *DPoP) proof(method string, target *url.URL, accessToken string, body []byte) (string, error) {
	signer, err := d.proofSigner()
	if err != nil {
		return "", err
	}
	htu := *target
	htu.RawQuery, htu.Fragment, htu.User = "", "", nil
	claims := map[string]any{
		"jti": rand.Text(),
		"htm": method,
		"htu": htu.String(),
		"iat": time.Now().Unix(),
	}
	if nonce := d.nonce(origin(target)); nonce != "" {
		claims["nonce"] = nonce
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if body != nil {
		sum := sha256.Sum256(body)
		claims["content_digest"] = "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
	}
	return signJWT(signer, claims)
}

func (d *DPoP) nonce(origin string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.nonces[origin]
}

// noteNonce keeps the nonce a response from origin carries; servers may send
// a new one with any answer (RFC 9449 §8.2).
func (d *DPoP) noteNonce(origin string, resp *http.Response) string {
	nonce := resp.Header.Get("DPoP-Nonce")
	if nonce == "" {
		return ""
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.nonces == nil {
		d.nonces = map[string]string{}
	}
	d.nonces[origin] = nonce
	return nonce
}

func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// HTTPClient returns a copy of base (nil: a new client with
// http.DefaultTransport) that adds a DPoP proof to every token request it
// sends (a form POST with a grant_type) and answers a token endpoint's
// use_dpop_nonce challenge once. Other requests (metadata, registration) go
// out as they are. Give it to an OAuth handler as its HTTP client.
func (d *DPoP) HTTPClient(base *http.Client) *http.Client {
	if base == nil {
		base = &http.Client{}
	}
	if t, ok := base.Transport.(*dpopTokenTransport); ok && t.dpop == d {
		return base
	}
	c := *base
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = &dpopTokenTransport{next: next, dpop: d}
	return &c
}

// String names the key's source, never the key.
func (d *DPoP) String() string {
	if d.Key == nil {
		return "DPoP{Key: a P-256 key of its own}"
	}
	return "DPoP{Key: " + d.Key.String() + "}"
}

// GoString is String.
func (d *DPoP) GoString() string { return d.String() }

// MarshalJSON encodes String.
func (d *DPoP) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// dpopTokenTransport proves possession of the key at token endpoints.
type dpopTokenTransport struct {
	next http.RoundTripper
	dpop *DPoP
}

func (t *dpopTokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !isTokenRequest(req) {
		return t.next.RoundTrip(req)
	}
	if req.Body != nil {
		// Each attempt sends a copy from GetBody; the original is closed
		// as a RoundTripper must.
		defer func() { _ = req.Body.Close() }()
	}
	from := origin(req.URL)
	for attempt := 0; ; attempt++ {
		out, err := withProof(req, t.dpop, "", nil)
		if err != nil {
			return nil, err
		}
		resp, err := t.next.RoundTrip(out)
		if err != nil {
			return nil, err
		}
		nonce := t.dpop.noteNonce(from, resp)
		if resp.StatusCode != http.StatusBadRequest || nonce == "" || req.Context().Value(senderAnswersNonce{}) != nil {
			return resp, nil
		}
		challenged, err := tokenNonceChallenge(resp)
		if err != nil || !challenged {
			return resp, err
		}
		closeBody(resp)
		if attempt > 0 {
			return nil, fmt.Errorf("%w (token endpoint %s)", ErrDPoPNonce, req.URL.Redacted())
		}
	}
}

// senderAnswersNonce marks the context of a token request whose sender
// answers a use_dpop_nonce challenge itself, with a new request (the
// handlers of this package, whose requests carry one-time client
// assertions): the transport keeps the nonce and hands the challenge on.
type senderAnswersNonce struct{}

// isTokenRequest tells a token request (RFC 6749 §3.2: a form POST with a
// grant_type) from the other requests of an OAuth handler.
func isTokenRequest(req *http.Request) bool {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return false
	}
	if mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		return false
	}
	body, err := req.GetBody()
	if err != nil {
		return false
	}
	defer func() { _ = body.Close() }()
	b, err := io.ReadAll(io.LimitReader(body, 1<<20))
	if err != nil {
		return false
	}
	form, err := url.ParseQuery(string(b))
	return err == nil && form.Get("grant_type") != ""
}

// tokenNonceChallenge reports whether a 400 from a token endpoint is the
// use_dpop_nonce error (RFC 9449 §8), leaving resp's body readable.
func tokenNonceChallenge(resp *http.Response) (bool, error) {
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	if err != nil {
		return false, err
	}
	var e struct {
		Error string `json:"error"`
	}
	return json.Unmarshal(b, &e) == nil && e.Error == "use_dpop_nonce", nil
}

// withProof returns a copy of req with a fresh body and a fresh proof; an
// access token, if given, moves to the DPoP scheme.
func withProof(req *http.Request, d *DPoP, accessToken string, body []byte) (*http.Request, error) {
	out := req.Clone(req.Context())
	if req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		out.Body = b
	}
	proof, err := d.proof(req.Method, req.URL, accessToken, body)
	if err != nil {
		return nil, err
	}
	out.Header.Set("DPoP", proof)
	if accessToken != "" {
		out.Header.Set("Authorization", "DPoP "+accessToken)
	}
	return out, nil
}

// dpopResourceTransport presents DPoP-bound tokens to the MCP server: go-sdk
// writes "Authorization: Bearer <token>"; for a token the authorization
// server issued as DPoP this moves it to the DPoP scheme and adds a proof.
type dpopResourceTransport struct {
	next  http.RoundTripper
	dpop  *DPoP
	bound *boundTokens
}

func (t *dpopResourceTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	scheme, token, _ := strings.Cut(req.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "bearer") || !t.bound.has(token) {
		return t.next.RoundTrip(req)
	}
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
		// A copy of the request that the retry can send again.
		req = req.Clone(req.Context())
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	from := origin(req.URL)
	for attempt := 0; ; attempt++ {
		out, err := withProof(req, t.dpop, token, body)
		if err != nil {
			return nil, err
		}
		resp, err := t.next.RoundTrip(out)
		if err != nil {
			return nil, err
		}
		nonce := t.dpop.noteNonce(from, resp)
		if resp.StatusCode != http.StatusUnauthorized {
			return resp, nil
		}
		code, description := dpopChallenge(resp)
		switch {
		case code == "invalid_dpop_proof":
			// Another grant would bring a token bound to the same key, so
			// go-sdk's re-authorization could not help: fail here.
			closeBody(resp)
			return nil, fmt.Errorf("%w (%s): %q", ErrDPoPProofRefused, req.URL.Redacted(), truncate(description, 200))
		case code != "use_dpop_nonce" || nonce == "":
			return resp, nil
		}
		closeBody(resp)
		if attempt > 0 {
			return nil, fmt.Errorf("%w (%s)", ErrDPoPNonce, req.URL.Redacted())
		}
	}
}

// ErrDPoPProofRefused is wrapped by the error of a request that the MCP
// server answered with a DPoP challenge of error invalid_dpop_proof (RFC
// 9449 §7.1), e.g. for a proof it took for a replay. The request is not
// sent again.
var ErrDPoPProofRefused = errors.New("auth: DPoP: the server refused the proof")

// dpopChallenge is the error and error_description of a 401's DPoP
// challenge (RFC 9449 §7.1), if it has one.
func dpopChallenge(resp *http.Response) (code, description string) {
	challenges, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return "", ""
	}
	for _, c := range challenges {
		if c.Scheme == "dpop" {
			return c.Params["error"], c.Params["error_description"]
		}
	}
	return "", ""
}

// boundTokens remembers which access tokens were issued as DPoP tokens, by
// their SHA-256, the last few of them (a refresh overlaps requests in
// flight with the old token).
type boundTokens struct {
	mu     sync.Mutex
	hashes [4][sha256.Size]byte
	n      int
}

func (b *boundTokens) add(token string) {
	sum := sha256.Sum256([]byte(token))
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range min(b.n, len(b.hashes)) {
		if b.hashes[i] == sum {
			return
		}
	}
	b.hashes[b.n%len(b.hashes)] = sum
	b.n++
}

func (b *boundTokens) has(token string) bool {
	if token == "" {
		return false
	}
	sum := sha256.Sum256([]byte(token))
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range min(b.n, len(b.hashes)) {
		if b.hashes[i] == sum {
			return true
		}
	}
	return false
}

// dpopHandler wraps the OAuthHandler of a transport with a [DPoP]: it notes
// which of the handler's tokens are DPoP-bound, and hands the DPoP to the
// handlers of this package through Authorize's context.
type dpopHandler struct {
	inner  sdkauth.OAuthHandler
	dpop   *DPoP
	bound  *boundTokens
	logger *zap.Logger
	warned sync.Once
}

func (h *dpopHandler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	ts, err := h.inner.TokenSource(ctx)
	if err != nil || ts == nil {
		return ts, err
	}
	return noteBinding{source: ts, handler: h}, nil
}

func (h *dpopHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	return h.inner.Authorize(context.WithValue(ctx, dpopKey{}, h.dpop), req, resp)
}

// noteBinding records each token's binding as go-sdk takes it.
type noteBinding struct {
	source  oauth2.TokenSource
	handler *dpopHandler
}

func (n noteBinding) Token() (*oauth2.Token, error) {
	tok, err := n.source.Token()
	if err != nil || tok == nil {
		return tok, err
	}
	if strings.EqualFold(tok.TokenType, "dpop") {
		n.handler.bound.add(tok.AccessToken)
	} else {
		n.handler.warned.Do(func() {
			n.handler.logger.Warn("DPoP is set, but the authorization server issued a token that is not DPoP-bound; it is sent as a bearer token",
				zap.String("token_type", truncate(tok.TokenType, 40)))
		})
	}
	return tok, nil
}

type dpopKey struct{}

// dpopFrom is the DPoP that a dpopHandler put in an Authorize context.
func dpopFrom(ctx context.Context) *DPoP {
	d, _ := ctx.Value(dpopKey{}).(*DPoP)
	return d
}

// Bind returns the HTTP client and OAuth handler of one connection whose
// tokens d binds: a copy of client (nil: a new client with
// http.DefaultTransport) that presents DPoP-bound tokens with a fresh proof,
// and oauth wrapped to note which of its tokens are bound and to hand d to
// the handlers of this package when they grant. transport's StreamableHTTP
// calls it for its DPoP field; a caller that builds go-sdk's
// StreamableClientTransport itself can too. It fails when oauth is nil or
// d's key cannot work.
func (d *DPoP) Bind(client *http.Client, oauth sdkauth.OAuthHandler, logger *zap.Logger) (*http.Client, sdkauth.OAuthHandler, error) {
	if oauth == nil {
		return nil, nil, errors.New("auth: DPoP needs an OAuthHandler, whose tokens it binds")
	}
	if err := d.Check(); err != nil {
		return nil, nil, err
	}
	if client == nil {
		client = &http.Client{}
	}
	if logger == nil {
		logger = zap.NewNop()
	}
	bound := &boundTokens{}
	c := *client
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = &dpopResourceTransport{next: next, dpop: d, bound: bound}
	return &c, &dpopHandler{inner: oauth, dpop: d, bound: bound, logger: logger}, nil
}
