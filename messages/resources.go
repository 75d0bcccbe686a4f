package messages

import (
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The methods a [ServerRequest] may name: the server's resources, resource
// templates and prompts.
const (
	MethodListResources         = "resources/list"
	MethodListResourceTemplates = "resources/templates/list"
	MethodReadResource          = "resources/read"
	MethodListPrompts           = "prompts/list"
	MethodGetPrompt             = "prompts/get"
)

// ServerRequest asks a connection (or its supervisor) to send one request
// of the server's resources and prompts: a page of a list, a resource read,
// a prompt got. Sent by the facade. Reply: [*ServerReply] with the same ID.
// A supervisor holds it while reconnecting, as it holds a [CallTool], and
// [CancelCall] with its ID cancels it. Its wire form and its reply's
// carry it to a grain on another member of a cluster.
type ServerRequest struct {
	// ID identifies the request to [CancelCall] and in the reply; it is
	// drawn from the same sequence as call IDs.
	ID uint64
	// Method is one of MethodListResources, MethodListResourceTemplates,
	// MethodReadResource, MethodListPrompts, MethodGetPrompt.
	Method string
	// Cursor is the page to list (a list's NextCursor); empty for the first.
	Cursor string
	// URI is the resource to read (MethodReadResource).
	URI string
	// Name is the prompt to get (MethodGetPrompt).
	Name string
	// Arguments are the prompt's arguments (MethodGetPrompt).
	Arguments map[string]string
	// Deadline, if not zero, bounds the request; past it the request fails.
	Deadline time.Time
	// Limit names what set Deadline, as [CallTool.Limit] does.
	Limit string
}

// Op names the request in errors: "resources/read" with the URI quoted,
// "prompts/get" with the name quoted, the method alone for a list.
func (r *ServerRequest) Op() string {
	switch r.Method {
	case MethodReadResource:
		return r.Method + " " + strconv.Quote(r.URI)
	case MethodGetPrompt:
		return r.Method + " " + strconv.Quote(r.Name)
	}
	return r.Method
}

// ServerReply answers [ServerRequest]: exactly one of Result and Failure is
// set. Result is go-sdk's result of the method: *mcp.ListResourcesResult,
// *mcp.ListResourceTemplatesResult, *mcp.ReadResourceResult,
// *mcp.ListPromptsResult or *mcp.GetPromptResult. A server that does not
// declare resources (or prompts) answers a list with an empty result.
type ServerReply struct {
	ID      uint64
	Result  mcp.Result
	Failure *Failure
}

// IgnoreDeadLetterLogging: see [Ready.IgnoreDeadLetterLogging].
func (*ServerReply) IgnoreDeadLetterLogging() {}
