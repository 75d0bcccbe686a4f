package toolbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"

	"github.com/cuca-go/mcpconnector/internal/core/origin"
	"github.com/cuca-go/mcpconnector/mcpconfig"
)

// headersHelperTimeout bounds each run of a server's headersHelper
// ([mcpconfig.Server.HeadersHelper]); one that has not printed its headers
// by then is killed, and the request that needed them fails.
const headersHelperTimeout = 10 * time.Second

// ErrHeadersHelper is wrapped by the error of a request whose server's
// headersHelper failed: it did not start, exited with an error, had not
// printed its headers within 10 seconds, or printed something other than
// one JSON object of string values. The error says which, never what the helper
// printed, which holds credentials; the server's status error
// ([Toolbox.Status]) quotes it.
var ErrHeadersHelper = errors.New("toolbox: headersHelper failed")

// headersHelper runs a server's headersHelper command and keeps the
// headers it printed until a 401 asks for fresh ones.
type headersHelper struct {
	server, url, command string
	timeout              time.Duration

	mu      sync.Mutex
	headers map[string]string // nil until the first run, and after a 401
}

// newHeadersClient returns an HTTP client that sends sc's helper's headers
// on every request to the origin (scheme, host, port) of sc's URL, on top
// of base's transport (nil: the default one). A redirect to another origin,
// or from https to http, is refused, as the transport's own client does.
func newHeadersClient(sc *mcpconfig.Server, base *http.Client) *http.Client {
	h := &headersHelper{server: sc.Name, url: sc.URL, command: sc.HeadersHelper, timeout: headersHelperTimeout}
	c := origin.Client(base)
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = &headersTransport{helper: h, next: next}
	return c
}

// current returns the headers, running the helper when it has none.
func (h *headersHelper) current(ctx context.Context, fresh bool) (map[string]string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.headers != nil && !fresh {
		return h.headers, nil
	}
	headers, err := h.run(ctx)
	if err != nil {
		h.headers = nil
		return nil, err
	}
	h.headers = headers
	return headers, nil
}

// run runs the command through the system's shell, as Claude Code does,
// with CLAUDE_CODE_MCP_SERVER_NAME and CLAUDE_CODE_MCP_SERVER_URL set.
func (h *headersHelper) run(ctx context.Context) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.timeout)
	defer cancel()
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", h.command)
	} else {
		cmd = exec.CommandContext(ctx, "/bin/sh", "-c", h.command)
	}
	cmd.Env = append(os.Environ(), "CLAUDE_CODE_MCP_SERVER_NAME="+h.server, "CLAUDE_CODE_MCP_SERVER_URL="+h.url)
	cmd.WaitDelay = time.Second
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = io.Discard // it may echo the secret
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%w: server %q: it did not finish within %v", ErrHeadersHelper, h.server, h.timeout)
	case err != nil:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, fmt.Errorf("%w: server %q: it exited with status %d", ErrHeadersHelper, h.server, exit.ExitCode())
		}
		return nil, fmt.Errorf("%w: server %q: %w", ErrHeadersHelper, h.server, err)
	}
	var headers map[string]string
	if json.Unmarshal(out.Bytes(), &headers) != nil || headers == nil {
		return nil, fmt.Errorf("%w: server %q: its output is not one JSON object of header names to string values", ErrHeadersHelper, h.server)
	}
	for k, v := range headers {
		if k == "" || bytes.ContainsAny([]byte(k+v), "\r\n") {
			return nil, fmt.Errorf("%w: server %q: its output has an invalid header", ErrHeadersHelper, h.server)
		}
	}
	return headers, nil
}

// headersTransport sets the helper's headers on each request to the
// server's origin and, when
// the server answers 401, runs the helper again and sends the request once
// more with the fresh headers.
type headersTransport struct {
	helper *headersHelper
	next   http.RoundTripper
}

func (t *headersTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !origin.SameAs(t.helper.url, req.URL) {
		return t.next.RoundTrip(req) // the helper's headers are for its server only
	}
	headers, err := t.helper.current(req.Context(), false)
	if err != nil {
		return nil, err
	}
	resp, err := t.next.RoundTrip(withHeaders(req, headers))
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	if req.Body != nil && req.GetBody == nil {
		return resp, nil // its body cannot be sent again
	}
	headers, err = t.helper.current(req.Context(), true)
	if err != nil {
		return resp, nil // the 401 says more than the helper's failure
	}
	retry := withHeaders(req, headers)
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return resp, nil
		}
		retry.Body = body
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return t.next.RoundTrip(retry)
}

// withHeaders is a copy of req carrying headers.
func withHeaders(req *http.Request, headers map[string]string) *http.Request {
	r := req.Clone(req.Context())
	for k, v := range headers {
		r.Header.Set(k, v)
	}
	return r
}
