package actors

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// classify turns go-sdk's answer to a tools/call into a reply. Results that
// ask for more rounds (SEP-2322 input_required, SEP-2663 task) are not driven
// further: they are NotSupported.
func classify(msg *messages.CallTool, res *mcp.CallToolResult, err error, tail transport.StderrTail) *messages.CallToolReply {
	if err != nil {
		text := err.Error()
		if errors.Is(err, mcp.ErrConnectionClosed) {
			text = withTail(text, tail)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			text = "deadline exceeded: " + text
		}
		return callFailure(msg, messages.FailureInternal, text)
	}
	if res == nil {
		return callFailure(msg, messages.FailureInternal, "server returned no result")
	}
	if res.NeedsInput() {
		return callFailure(msg, messages.FailureNotSupported, `server answered resultType "input_required" (SEP-2322), which this client does not drive`)
	}
	if len(res.Content) == 0 && res.StructuredContent == nil {
		// go-sdk keeps an unknown resultType only in the result's JSON form;
		// an empty result is the only shape a task or unknown answer takes.
		switch rt := resultType(res); rt {
		case "", "complete":
		case "task":
			return callFailure(msg, messages.FailureNotSupported, `server answered resultType "task" (SEP-2663), which this client does not drive`)
		default:
			return callFailure(msg, messages.FailureInternal, "server answered an unrecognised resultType "+quote(rt))
		}
	}
	return &messages.CallToolReply{ID: msg.ID, Result: res}
}

func resultType(res *mcp.CallToolResult) string {
	b, err := json.Marshal(res)
	if err != nil {
		return ""
	}
	var w struct {
		ResultType string `json:"resultType"`
	}
	_ = json.Unmarshal(b, &w)
	return w.ResultType
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
