package transport

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// A session of a revision before 2026-07-28 over Streamable HTTP is the
// server's Mcp-Session-Id, which 2026-07-28 has none of: only a connection
// with plugin.WithLegacyFallback sends it. A server that restarted, or
// dropped the session, no longer knows it, and refuses every POST that
// names it: with 404, as the revisions' spec says, or, as the TypeScript
// SDK v1's own examples (and the servers built on them) do, with 400 "No
// valid session ID provided". Either way the session is lost: the POST's
// message was not taken, and every later one would be refused too. So the
// POST fails with ErrNotSent, which ends the session (the supervisor
// starts a new one, initialized again) and lets a call wait for it.

// sessionLost reports whether resp, the answer to req, says that the
// server no longer knows the session req names. A 400's body is read
// (at most maxErrorBody of it) and put back.
func sessionLost(req *http.Request, resp *http.Response) bool {
	if req.Header.Get("Mcp-Session-Id") == "" {
		return false
	}
	switch resp.StatusCode {
	case http.StatusNotFound:
		return true
	case http.StatusBadRequest:
		body := readBody(resp)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		text := strings.ToLower(string(body))
		return strings.Contains(text, "session id") || strings.Contains(text, "session not found")
	}
	return false
}

// lostSession is the error of a POST refused because the server no longer
// knows its session; resp's body is consumed.
func lostSession(req *http.Request, resp *http.Response) error {
	return fmt.Errorf("%w: %s: the server no longer knows the session (HTTP %s: %s)",
		ErrNotSent, redactedURL(req), resp.Status, errorDetail(resp))
}
