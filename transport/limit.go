package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
	"github.com/cuca-go/mcpconnector/internal/core/transportext"
)

// MaxMessageBytes bounds one message from a server, on every transport: one
// stdio line (go-sdk's own limit), one server-sent event, or one JSON
// response body over Streamable HTTP. A larger message is refused while it is
// read, never held whole.
const MaxMessageBytes = mcp.DefaultMaxLineLength

// ErrMessageTooLarge describes a server message over [MaxMessageBytes]: a
// Streamable HTTP response body or event, or a stdio line. The request it
// answered fails with a JSON-RPC error carrying this text; the session goes
// on.
var ErrMessageTooLarge = fmt.Errorf("transport: server message exceeds %d MiB", MaxMessageBytes>>20)

// MaxNesting is how deep the values of a server's message may nest: the
// JSON decoders under the module (encoding/json's, go-sdk's) stop at
// 10,000 levels of objects and arrays.
const MaxNesting = 10000

// ErrMessageTooDeep describes a server message nested deeper than
// [MaxNesting]. Over stdio as over Streamable HTTP, an answer whose id can
// be read fails its call at once with a JSON-RPC error of this text, and
// the session goes on; one whose id cannot be read is skipped.
var ErrMessageTooDeep = fmt.Errorf("transport: server message nested deeper than %d levels", MaxNesting)

// limitResponses returns a copy of client whose response bodies are bounded:
// go-sdk reads a JSON response body whole (io.ReadAll), with no limit of its
// own.
func limitResponses(client *http.Client) *http.Client {
	c := *client
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = limitRoundTripper{base: base, limit: MaxMessageBytes}
	return &c
}

// limitRoundTripper reads every response body that is not an event stream
// before handing it on, at most limit bytes of it. A body over the limit is
// replaced by a JSON-RPC error answering the same request, so that one
// oversized answer fails one call, as a server's error would, and neither
// breaks the session nor looks like a lost connection. Event streams pass
// through; go-sdk bounds each of their events (MaxEventSize).
type limitRoundTripper struct {
	base  http.RoundTripper
	limit int64
}

func (rt limitRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if name, ok := transportext.McpNameOf(req.Context()); ok && req.Header.Get("Mcp-Name") == "" {
		// A task request (SEP-2663): go-sdk names no Mcp-Name for it.
		req = req.Clone(req.Context())
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := rt.base.RoundTrip(req)
	if err != nil || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
		return resp, nil
	}
	var body []byte
	if resp.ContentLength <= rt.limit {
		body, err = io.ReadAll(io.LimitReader(resp.Body, rt.limit+1))
	}
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if resp.ContentLength <= rt.limit && int64(len(body)) <= rt.limit {
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		return resp, nil
	}
	refusal := refusalFor(req, resp.StatusCode)
	resp.Body = io.NopCloser(bytes.NewReader(refusal))
	resp.ContentLength = int64(len(refusal))
	if len(refusal) > 0 {
		resp.Header = resp.Header.Clone()
		resp.Header.Set("Content-Type", "application/json")
		resp.Header.Del("Content-Length")
	}
	return resp, nil
}

// refusalFor is the JSON-RPC error that stands in for an oversized answer to
// req, or nothing when req was no call (or its status was an error anyway,
// which go-sdk reports by itself).
func refusalFor(req *http.Request, status int) []byte {
	if status < 200 || status > 299 || req.GetBody == nil {
		return nil
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer rc.Close()
	var call struct {
		ID json.RawMessage `json:"id"`
	}
	if json.NewDecoder(rc).Decode(&call) != nil || len(call.ID) == 0 || string(call.ID) == "null" {
		return nil
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": call.ID, "error": map[string]any{
		"code":    -32603, // internal error
		"message": directcall.RefusedMessage(ErrMessageTooLarge, status),
	}})
	return b
}
