package wire

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/messages"
)

// The wire forms of [messages.ServerRequest] and [messages.ServerReply]: a reply's result
// travels as go-sdk's JSON of it, named by its method, and reads back as
// the same result type.

func serverRequestWire(m *messages.ServerRequest) *WireServerRequest {
	w := &WireServerRequest{Id: m.ID, Method: m.Method, Cursor: m.Cursor, Uri: m.URI, Name: m.Name,
		Arguments: m.Arguments, Limit: m.Limit}
	if !m.Deadline.IsZero() {
		w.DeadlineUnixNano = m.Deadline.UnixNano()
	}
	return w
}

func (w *WireServerRequest) plain() *messages.ServerRequest {
	m := &messages.ServerRequest{ID: w.Id, Method: w.Method, Cursor: w.Cursor, URI: w.Uri, Name: w.Name, Limit: w.Limit}
	if len(w.Arguments) > 0 {
		m.Arguments = w.Arguments
	}
	if w.DeadlineUnixNano != 0 {
		m.Deadline = time.Unix(0, w.DeadlineUnixNano)
	}
	return m
}

// resultMethod is the method whose result r is, or "".
func resultMethod(r mcp.Result) string {
	switch r.(type) {
	case *mcp.ListResourcesResult:
		return messages.MethodListResources
	case *mcp.ListResourceTemplatesResult:
		return messages.MethodListResourceTemplates
	case *mcp.ReadResourceResult:
		return messages.MethodReadResource
	case *mcp.ListPromptsResult:
		return messages.MethodListPrompts
	case *mcp.GetPromptResult:
		return messages.MethodGetPrompt
	}
	return ""
}

// newResult is an empty result of method, or nil.
func newResult(method string) mcp.Result {
	switch method {
	case messages.MethodListResources:
		return new(mcp.ListResourcesResult)
	case messages.MethodListResourceTemplates:
		return new(mcp.ListResourceTemplatesResult)
	case messages.MethodReadResource:
		return new(mcp.ReadResourceResult)
	case messages.MethodListPrompts:
		return new(mcp.ListPromptsResult)
	case messages.MethodGetPrompt:
		return new(mcp.GetPromptResult)
	}
	return nil
}

// serverReplyWire carries the result as JSON; a result that cannot be
// written fails the request instead.
func serverReplyWire(m *messages.ServerReply) *WireServerReply {
	w := &WireServerReply{Id: m.ID}
	if m.Failure != nil {
		w.Failure = failureWire(m.Failure)
	}
	if m.Result != nil {
		w.Method = resultMethod(m.Result)
		var err error
		if w.Method == "" {
			err = fmt.Errorf("a result of type %T", m.Result)
		} else {
			w.ResultJson, err = json.Marshal(m.Result)
		}
		if err != nil {
			w.Method, w.ResultJson, w.Failure = "", nil, failureWire(wireFailure("", "the result", err))
		}
	}
	return w
}

// plain reads the result back as its method's type; one that does not
// read back fails the request.
func (w *WireServerReply) plain() *messages.ServerReply {
	m := &messages.ServerReply{ID: w.Id}
	if w.Failure != nil {
		m.Failure = w.Failure.plain()
	}
	if len(w.ResultJson) > 0 {
		res := newResult(w.Method)
		err := fmt.Errorf("unknown method %q", w.Method)
		if res != nil {
			err = json.Unmarshal(w.ResultJson, res)
		}
		if err != nil {
			m.Failure = wireFailure(w.Method, "the result", err)
			return m
		}
		m.Result = res
	}
	return m
}
