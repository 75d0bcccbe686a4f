// Package origin is the module's one redirect policy: credentials go only
// to the origin (scheme, host, port) they were configured or issued for.
//
// Every HTTP client the module makes (a Streamable HTTP transport's, its
// direct tools/call path's, package auth's metadata and token requests, a
// toolbox server's headersHelper client) has [CheckRedirect]: a redirect
// within the origin of the first request is followed, one to another
// origin, or from https to http, is refused. The requests of these clients
// carry credentials (a bearer token, a DPoP proof, a client assertion,
// custom headers) or bodies that may hold secrets (a tool call's
// arguments), which a 307 or 308 sends again as they are; a server that
// moved is configured at its new URL.
package origin

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// ErrRedirectRefused is wrapped by the error of a request whose answer
// redirected to another origin, or from https to http.
var ErrRedirectRefused = errors.New("redirect to another origin refused")

// maxRedirects is net/http's own limit.
const maxRedirects = 10

// Of is u's origin as "scheme://host:port", the scheme and host in lower
// case and the port made explicit (80 for http, 443 for https).
func Of(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		switch scheme {
		case "http", "ws":
			port = "80"
		case "https", "wss":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// Same reports whether a and b have one origin.
func Same(a, b *url.URL) bool { return Of(a) == Of(b) }

// SameAs reports whether u is at the origin of the URL configured, which
// does not parse: nothing is.
func SameAs(configured string, u *url.URL) bool {
	c, err := url.Parse(configured)
	if err != nil || c.Host == "" {
		return false
	}
	return Same(c, u)
}

// CheckRedirect is an http.Client's CheckRedirect of the policy: req, the
// redirect's request, is refused unless it stays at the origin of via[0],
// the request first sent; and after ten redirects, as net/http's default.
func CheckRedirect(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	first := via[0].URL
	if strings.EqualFold(first.Scheme, "https") && !strings.EqualFold(req.URL.Scheme, "https") {
		return fmt.Errorf("%w: from https to %s (%s)", ErrRedirectRefused, req.URL.Scheme, Of(req.URL))
	}
	if !Same(first, req.URL) {
		return fmt.Errorf("%w: from %s to %s", ErrRedirectRefused, Of(first), Of(req.URL))
	}
	return nil
}

// Client returns a copy of c (nil: a zero client) whose CheckRedirect is
// [CheckRedirect] followed by c's own, if it has one.
func Client(c *http.Client) *http.Client {
	out := &http.Client{}
	if c != nil {
		*out = *c
	}
	own := out.CheckRedirect
	out.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := CheckRedirect(req, via); err != nil {
			return err
		}
		if own != nil {
			return own(req, via)
		}
		return nil
	}
	return out
}
