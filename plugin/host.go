package plugin

import "github.com/cuca-go/mcpconnector/host"

// The host contract lives in package host, which imports nothing of this
// module, so a client builds without the actors, the MCP SDK or the cluster.
// The names below keep code written against package plugin compiling, the way
// os keeps os.FileInfo for io/fs.FileInfo.

// Plugin is the host contract: an LLM client calls these hooks around every
// request it streams. It is [host.Plugin].
type Plugin = host.Plugin

// Base implements every [Plugin] hook as a no-op. It is [host.Base].
type Base = host.Base

// Block is one piece of a model's message. It is [host.Block].
type Block = host.Block

// Text is visible answer text. It is [host.Text].
type Text = host.Text

// Thinking is reasoning text. It is [host.Thinking].
type Thinking = host.Thinking

// ToolCall is a model's request to run a tool. It is [host.ToolCall].
type ToolCall = host.ToolCall

// ToolResult is the outcome of a [ToolCall]. It is [host.ToolResult].
type ToolResult = host.ToolResult

// Chunk is one complete piece of a streamed answer. It is [host.Chunk].
type Chunk = host.Chunk

// Role says who wrote a [Message]. It is [host.Role].
type Role = host.Role

// The roles of a conversation, as in package host.
const (
	RoleSystem    = host.RoleSystem
	RoleUser      = host.RoleUser
	RoleAssistant = host.RoleAssistant
	RoleTool      = host.RoleTool
)

// Message is one turn of a conversation. It is [host.Message].
type Message = host.Message

// ToolDefinition publishes a tool to the model. It is [host.ToolDefinition].
type ToolDefinition = host.ToolDefinition

// Request is what an LLM client sends. It is [host.Request].
type Request = host.Request

// Response is a complete answer. It is [host.Response].
type Response = host.Response

// NewRequest returns an empty request for model; see [host.NewRequest].
func NewRequest(model string) *Request { return host.NewRequest(model) }

// FirstToolCall returns the index of the first [ToolCall] in blocks whose
// name is a key of known, or -1; see [host.FirstToolCall].
func FirstToolCall[V any](blocks []Block, known map[string]V) int {
	return host.FirstToolCall(blocks, known)
}
