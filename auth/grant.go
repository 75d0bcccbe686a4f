package auth

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	redirects "github.com/cuca-go/mcpconnector/internal/core/origin"
	"github.com/cuca-go/mcpconnector/internal/core/safetext"
)

// This file holds what the machine-to-machine handlers ([ClientCredentialsJWT],
// [EnterpriseAuth], [WorkloadIdentity]) share: discovery of the server's
// authorization server on a 401, one token request per grant, the token
// endpoint's errors, and a token source that runs the grant again when its
// token expires. None of them retries a refused grant: a refusal is final
// until the next request that the server answers 401.

// TokenError is a token endpoint's refusal of a grant (RFC 6749 §5.2), or
// an answer that is no token response. It carries what the endpoint said,
// never what was sent: no assertion, secret or key.
type TokenError struct {
	// Endpoint is the token endpoint's URL.
	Endpoint string
	// GrantType is the grant that was refused, e.g. "client_credentials".
	GrantType string
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// Code is the OAuth error code ("invalid_grant", "invalid_client", ...),
	// empty when the answer named none.
	Code string
	// Description is the endpoint's error_description, cut to 200 bytes.
	Description string
}

func (e *TokenError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "auth: token endpoint %s refused the %s grant (HTTP %d", e.Endpoint, e.GrantType, e.StatusCode)
	if e.Code != "" {
		fmt.Fprintf(&b, ", %s", safetext.Clean(e.Code)) // the endpoint's word
	}
	b.WriteString(")")
	if e.Description != "" {
		fmt.Fprintf(&b, ": %q", e.Description)
	}
	return b.String()
}

// ErrBadTokenResponse is wrapped by the error of a token request whose answer
// was a success status but no token response: not JSON, or no access_token.
var ErrBadTokenResponse = errors.New("auth: the token endpoint's answer is not a token response")

// Grant types and token types of the handlers in this package.
const (
	grantClientCredentials = "client_credentials"
	grantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	clientAssertionJWT     = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// grantTimeout bounds a grant that runs again when its token expired: go-sdk
// asks the token source for a token with no context of the caller's.
const grantTimeout = 30 * time.Second

// grantTarget is what discovery learned about a protected MCP server.
type grantTarget struct {
	// resource is the server's resource identifier from its protected
	// resource metadata (the RFC 8707 "resource" of every token request).
	resource string
	// meta is the authorization server's metadata.
	meta *oauthex.AuthServerMeta
	// scopes are the scopes to request.
	scopes []string
}

// discoverTarget finds the authorization server of the server that answered
// resp to req: its protected resource metadata (RFC 9728: the challenge's
// resource_metadata, then the well-known URLs) and that server's own
// metadata (RFC 8414, OpenID Connect Discovery).
func discoverTarget(ctx context.Context, client *http.Client, req *http.Request, challenges []oauthex.Challenge) (*grantTarget, error) {
	resource := req.URL.String()
	var prm *oauthex.ProtectedResourceMetadata
	var lastErr error
	for _, u := range resourceMetadataURLs(challenges, req.URL) {
		m, err := oauthex.GetProtectedResourceMetadata(ctx, u.url, u.resource, client)
		if err != nil {
			lastErr = err
			continue
		}
		prm = m
		break
	}
	if prm == nil {
		return nil, fmt.Errorf("auth: no protected resource metadata for %s (%v)", resource, lastErr)
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, fmt.Errorf("auth: the protected resource metadata of %s names no authorization server", resource)
	}
	meta, err := fetchAuthServerMeta(ctx, client, prm.AuthorizationServers[0])
	if err != nil {
		return nil, err
	}
	scopes := challengeScopes(challenges)
	if len(scopes) == 0 {
		scopes = prm.ScopesSupported
	}
	return &grantTarget{resource: prm.Resource, meta: meta, scopes: scopes}, nil
}

type metadataURL struct{ url, resource string }

// resourceMetadataURLs lists where protected resource metadata may be, in the
// order MCP's authorization spec gives, each with the resource it must name.
func resourceMetadataURLs(challenges []oauthex.Challenge, endpoint *url.URL) []metadataURL {
	var urls []metadataURL
	for _, c := range challenges {
		if u := c.Params["resource_metadata"]; u != "" {
			urls = append(urls, metadataURL{u, endpoint.String()})
			break
		}
	}
	at := *endpoint
	at.RawPath, at.RawQuery, at.Fragment = "", "", ""
	at.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(endpoint.Path, "/")
	urls = append(urls, metadataURL{at.String(), endpoint.String()})
	root := *endpoint
	root.Path, root.RawQuery, root.Fragment = "", "", ""
	at.Path = "/.well-known/oauth-protected-resource"
	return append(urls, metadataURL{at.String(), root.String()})
}

// challengeScopes is the scope parameter of a Bearer or DPoP challenge.
func challengeScopes(challenges []oauthex.Challenge) []string {
	for _, c := range challenges {
		if (c.Scheme == "bearer" || c.Scheme == "dpop") && c.Params["scope"] != "" {
			return strings.Fields(c.Params["scope"])
		}
	}
	return nil
}

// challengeError is the error parameter of a Bearer or DPoP challenge.
func challengeError(challenges []oauthex.Challenge) string {
	for _, c := range challenges {
		if (c.Scheme == "bearer" || c.Scheme == "dpop") && c.Params["error"] != "" {
			return c.Params["error"]
		}
	}
	return ""
}

// fetchAuthServerMeta fetches the metadata of the authorization server or
// IdP issuer, trying the RFC 8414 and OpenID Connect well-known URLs in the
// order MCP's authorization spec gives. Unlike go-sdk's discovery it does not
// require PKCE support, which no grant here uses.
func fetchAuthServerMeta(ctx context.Context, client *http.Client, issuer string) (*oauthex.AuthServerMeta, error) {
	if err := httpsOrLoopback(issuer); err != nil {
		return nil, fmt.Errorf("auth: authorization server %q: %w", issuer, err)
	}
	for _, u := range authServerMetadataURLs(issuer) {
		meta, found, err := getAuthServerMeta(ctx, client, u)
		if err != nil {
			return nil, fmt.Errorf("auth: authorization server metadata %s: %w", u, err)
		}
		if !found {
			continue
		}
		if strings.TrimSuffix(meta.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return nil, fmt.Errorf("auth: authorization server metadata %s names issuer %q, not %q", u, meta.Issuer, issuer)
		}
		if err := httpsOrLoopback(meta.TokenEndpoint); err != nil {
			return nil, fmt.Errorf("auth: authorization server %s: token_endpoint %q: %w", issuer, meta.TokenEndpoint, err)
		}
		return meta, nil
	}
	return nil, fmt.Errorf("auth: authorization server %s publishes no metadata", issuer)
}

// authServerMetadataURLs are the well-known metadata URLs of issuer.
func authServerMetadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	path := strings.Trim(u.Path, "/")
	at := func(p string) string {
		c := *u
		c.Path, c.RawQuery, c.Fragment = p, "", ""
		return c.String()
	}
	if path == "" {
		return []string{at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")}
	}
	return []string{
		at("/.well-known/oauth-authorization-server/" + path),
		at("/.well-known/openid-configuration/" + path),
		at("/" + path + "/.well-known/openid-configuration"),
	}
}

// getAuthServerMeta GETs one metadata URL; a 4xx answer means "not here".
func getAuthServerMeta(ctx context.Context, client *http.Client, u string) (*oauthex.AuthServerMeta, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, false, err
	}
	defer closeBody(resp)
	if resp.StatusCode >= 400 && resp.StatusCode < 500 {
		return nil, false, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, false, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" {
		return nil, false, fmt.Errorf("content type %q, not application/json", mt)
	}
	var meta oauthex.AuthServerMeta
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&meta); err != nil {
		return nil, false, fmt.Errorf("not JSON metadata: %w", err)
	}
	return &meta, true, nil
}

// httpsOrLoopback refuses a URL that would carry credentials in the clear to
// another machine.
func httpsOrLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("not an absolute URL")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if host == "localhost" {
			return nil
		}
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			return nil
		}
		return fmt.Errorf("plain http to a host that is not loopback")
	}
	return fmt.Errorf("scheme %q is not https", u.Scheme)
}

// closeBody drains a little of resp's body, so that the connection can be
// reused, and closes it.
func closeBody(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}

// clientAuth is how a client authenticates at a token endpoint: a secret
// (client_secret_basic or client_secret_post, as the server lists), a
// private_key_jwt assertion, or nothing but its id (none).
type clientAuth struct {
	id     string
	secret string
	key    *SigningKey
}

// tokenRequest is one request to a token endpoint.
type tokenRequest struct {
	endpoint string
	// params are grant_type and the grant's own parameters.
	params url.Values
	scopes []string
	auth   clientAuth
	// meta, if known, decides the client authentication method and is the
	// audience of a private_key_jwt assertion.
	meta *oauthex.AuthServerMeta
	// dpop tells that client adds DPoP proofs.
	dpop bool
}

// requestToken sends r through client and, when r goes through a [DPoP]
// client, answers the endpoint's use_dpop_nonce challenge (RFC 9449 §8) with
// exactly one new request: a new proof carrying the nonce, and a new client
// assertion, since the endpoint may have spent the first one.
func requestToken(ctx context.Context, client *http.Client, r tokenRequest) (*oauth2.Token, error) {
	if !r.dpop {
		return requestTokenOnce(ctx, client, r)
	}
	ctx = context.WithValue(ctx, senderAnswersNonce{}, true)
	tok, err := requestTokenOnce(ctx, client, r)
	if !isNonceChallenge(err) {
		return tok, err
	}
	tok, err = requestTokenOnce(ctx, client, r)
	if isNonceChallenge(err) {
		return nil, fmt.Errorf("%w: %w", ErrDPoPNonce, err)
	}
	return tok, err
}

func isNonceChallenge(err error) bool {
	var te *TokenError
	return errors.As(err, &te) && te.Code == "use_dpop_nonce"
}

// requestTokenOnce sends r through client (oauth2's client credentials
// config, whose grant_type may be overridden) and maps its failures to errors
// that say what the endpoint answered, without the request's credentials.
func requestTokenOnce(ctx context.Context, client *http.Client, r tokenRequest) (*oauth2.Token, error) {
	grant := r.params.Get("grant_type")
	cfg := &clientcredentials.Config{
		ClientID:       r.auth.id,
		TokenURL:       r.endpoint,
		Scopes:         r.scopes,
		EndpointParams: r.params,
		// An explicit style: oauth2's auto-detection would send a refused
		// request a second time with the credentials moved.
		AuthStyle: oauth2.AuthStyleInParams,
	}
	switch method := r.authMethod(); method {
	case "private_key_jwt":
		assertion, err := clientAssertion(r.auth, r.meta)
		if err != nil {
			return nil, err
		}
		cfg.ClientID = "" // the assertion's sub names the client (RFC 7523 §3)
		cfg.EndpointParams = cloneValues(r.params)
		cfg.EndpointParams.Set("client_assertion_type", clientAssertionJWT)
		cfg.EndpointParams.Set("client_assertion", assertion)
	case "client_secret_basic":
		cfg.ClientSecret, cfg.AuthStyle = r.auth.secret, oauth2.AuthStyleInHeader
	case "client_secret_post":
		cfg.ClientSecret = r.auth.secret
	}
	tok, err := cfg.Token(context.WithValue(ctx, oauth2.HTTPClient, client))
	if err == nil {
		return tok, nil
	}
	var re *oauth2.RetrieveError
	var ue *url.Error
	switch {
	case errors.As(err, &re):
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		return nil, &TokenError{Endpoint: r.endpoint, GrantType: grant, StatusCode: status,
			Code: re.ErrorCode, Description: truncate(re.ErrorDescription, 200)}
	case errors.As(err, &ue):
		return nil, fmt.Errorf("auth: token request to %s: %w", r.endpoint, ue.Err)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("auth: token request to %s: %w", r.endpoint, ctx.Err())
	}
	// What is left are oauth2's parse failures of a success answer; their
	// text quotes at most a character of it.
	return nil, fmt.Errorf("%w (%s, %s grant): %v", ErrBadTokenResponse, r.endpoint, grant, err)
}

// authMethod picks the client authentication method: private_key_jwt for a
// key, a secret as the server lists (client_secret_basic when it lists
// nothing, RFC 8414's default), or none.
func (r tokenRequest) authMethod() string {
	switch {
	case r.auth.key != nil:
		return "private_key_jwt"
	case r.auth.secret == "":
		return "none"
	}
	var listed []string
	if r.meta != nil {
		listed = r.meta.TokenEndpointAuthMethodsSupported
	}
	if len(listed) == 0 || slices.Contains(listed, "client_secret_basic") || !slices.Contains(listed, "client_secret_post") {
		return "client_secret_basic"
	}
	return "client_secret_post"
}

// clientAssertion signs a private_key_jwt assertion (RFC 7523 §2.2, §3):
// issuer and subject the client id, audience the authorization server's
// issuer identifier, valid for a minute, never used twice.
func clientAssertion(ca clientAuth, meta *oauthex.AuthServerMeta) (string, error) {
	if meta == nil || meta.Issuer == "" {
		return "", errors.New("auth: private_key_jwt needs the authorization server's metadata for the assertion's audience")
	}
	if methods := meta.TokenEndpointAuthMethodsSupported; len(methods) > 0 && !slices.Contains(methods, "private_key_jwt") {
		return "", fmt.Errorf("auth: authorization server %s does not accept private_key_jwt (it lists %s)", meta.Issuer, strings.Join(methods, ", "))
	}
	key, err := ca.key.load()
	if err != nil {
		return "", err
	}
	if algs := meta.TokenEndpointAuthSigningAlgValuesSupported; len(algs) > 0 && !slices.Contains(algs, string(key.alg)) {
		return "", fmt.Errorf("auth: authorization server %s accepts client assertions signed with %s, not %s", meta.Issuer, strings.Join(algs, ", "), key.alg)
	}
	signer, err := key.newSigner(signOptions{})
	if err != nil {
		return "", err
	}
	now := time.Now()
	return signJWT(signer, map[string]any{
		"iss": ca.id,
		"sub": ca.id,
		"aud": meta.Issuer,
		"jti": rand.Text(),
		"iat": now.Unix(),
		"exp": now.Add(time.Minute).Unix(),
	})
}

// checkGrantSupported refuses a grant the server's metadata leaves out of a
// list it does publish, before any credential is sent there.
func checkGrantSupported(meta *oauthex.AuthServerMeta, grant string) error {
	if len(meta.GrantTypesSupported) > 0 && !slices.Contains(meta.GrantTypesSupported, grant) {
		return fmt.Errorf("auth: authorization server %s does not offer the %s grant (it lists %s)",
			meta.Issuer, grant, strings.Join(meta.GrantTypesSupported, ", "))
	}
	return nil
}

// checkAccessToken accepts the token types a client can present: Bearer,
// and DPoP when proofs were sent for it.
func checkAccessToken(tok *oauth2.Token, endpoint string, dpop bool) error {
	switch {
	case strings.EqualFold(tok.TokenType, "bearer"), tok.TokenType == "":
		return nil
	case strings.EqualFold(tok.TokenType, "dpop") && dpop:
		return nil
	}
	return fmt.Errorf("%w (%s): token_type %q cannot be presented", ErrBadTokenResponse, endpoint, truncate(tok.TokenType, 40))
}

func cloneValues(v url.Values) url.Values {
	c := make(url.Values, len(v))
	for k, vs := range v {
		c[k] = slices.Clone(vs)
	}
	return c
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// grantFunc runs one machine-to-machine grant against target.
type grantFunc func(ctx context.Context, g grantEnv, target *grantTarget) (*oauth2.Token, error)

// grantEnv is what a grant runs with.
type grantEnv struct {
	// client sends metadata requests and requests to parties that bind
	// nothing (an IdP's token exchange).
	client *http.Client
	// tokenClient sends the requests to the MCP server's token endpoint:
	// client, with DPoP proofs when a [DPoP] is in use.
	tokenClient *http.Client
	dpop        bool
}

// grantState is the sdkauth.OAuthHandler state the grants share: the current
// token source and the scopes last asked for (kept for step-up).
type grantState struct {
	mu     sync.Mutex
	source oauth2.TokenSource
	scopes []string
}

// tokenSource is nil until a grant succeeded.
func (s *grantState) tokenSource() oauth2.TokenSource {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.source
}

// authorize is the Authorize of every grant handler: discovery, scopes, one
// grant, and a token source that runs the grant again (with a fresh
// assertion) once the token expired.
func (s *grantState) authorize(ctx context.Context, name string, httpClient *http.Client, scopes []string,
	req *http.Request, resp *http.Response, grant grantFunc) error {
	defer closeBody(resp)
	challenges, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return &grantError{name, fmt.Errorf("malformed WWW-Authenticate from %s: %w", req.URL.Redacted(), err)}
	}
	stepUp := resp.StatusCode == http.StatusForbidden
	if stepUp && challengeError(challenges) != "insufficient_scope" {
		return &grantError{name, fmt.Errorf("%s refused the request (HTTP 403) for a reason more scopes would not fix", req.URL.Redacted())}
	}
	// Metadata and token requests stay at their origin: a token endpoint
	// that redirects elsewhere never receives the client's assertion or
	// secret again, nor does a redirect from https to http (the https rule
	// covers the URLs discovered, the policy their redirects).
	httpClient = redirects.Client(httpClient)
	env := grantEnv{client: httpClient, tokenClient: httpClient}
	if d := dpopFrom(ctx); d != nil {
		env.tokenClient, env.dpop = d.HTTPClient(httpClient), true
	}
	target, err := discoverTarget(ctx, httpClient, req, challenges)
	if err != nil {
		return &grantError{name, err}
	}
	if len(scopes) > 0 {
		target.scopes = scopes
	}
	if stepUp {
		// Keep what was granted, and add what the server asks for even
		// when the scopes are configured.
		s.mu.Lock()
		target.scopes = unionScopes(unionScopes(s.scopes, target.scopes), challengeScopes(challenges))
		s.mu.Unlock()
	}
	tok, err := grant(ctx, env, target)
	if err != nil {
		// The token source stays as it was: a refused step-up leaves the
		// token that other requests still use.
		return &grantError{name, err}
	}
	again := &regrant{name: name, grant: grant, env: env, target: target}
	s.mu.Lock()
	s.source = oauth2.ReuseTokenSource(tok, again)
	s.scopes = target.scopes
	s.mu.Unlock()
	return nil
}

// regrant runs a grant again for a token source whose token expired.
type regrant struct {
	name   string
	grant  grantFunc
	env    grantEnv
	target *grantTarget
}

func (r *regrant) Token() (*oauth2.Token, error) {
	ctx, cancel := context.WithTimeout(context.Background(), grantTimeout)
	defer cancel()
	tok, err := r.grant(ctx, r.env, r.target)
	if err != nil {
		return nil, &grantError{r.name, err}
	}
	return tok, nil
}

// grantError names the handler whose grant failed: "auth: <handler>:
// <cause>", the cause's own package prefix dropped.
type grantError struct {
	handler string
	err     error
}

func (e *grantError) Error() string {
	return "auth: " + e.handler + ": " + strings.TrimPrefix(e.err.Error(), "auth: ")
}

func (e *grantError) Unwrap() error { return e.err }

func unionScopes(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// redacted is the String, GoString and JSON form of the handlers, which hold
// secrets: a name and the fields that are safe to show.
func redacted(kind string, fields ...string) string {
	return kind + "{" + strings.Join(fields, ", ") + "}"
}
