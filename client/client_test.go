package client_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/client"
	"github.com/cuca-go/mcpconnector/host"
)

func TestNewConfiguration(t *testing.T) {
	c, err := client.New()
	require.NoError(t, err)
	assert.Equal(t, client.LlamaCppBaseURL, c.BaseURL(), "llama-server on port 1234 by default")

	c, err = client.New(client.WithProvider(client.OpenAI))
	require.NoError(t, err)
	assert.Equal(t, client.OpenAIBaseURL, c.BaseURL())

	_, err = client.New(client.WithProvider(client.OpenAICompatible))
	require.ErrorIs(t, err, client.ErrConfig, "no default base URL")

	_, err = client.New(client.WithBaseURL("localhost:1234"))
	require.ErrorIs(t, err, client.ErrConfig)

	_, err = client.New(client.WithProvider(client.Provider(42)))
	require.ErrorIs(t, err, client.ErrConfig)

	assert.Panics(t, func() { client.WithPlugin(nil) })
}

func TestAPIKey(t *testing.T) {
	// A key in the environment must not leak to a server it was not meant for.
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	t.Setenv("OPENAI_BASE_URL", "http://192.0.2.1/v1")
	srv := newLLMServer(t, streamOf(chunk(content("ok"), "stop")))

	_, err := srv.newClient(t).Stream(t.Context(), question())
	require.NoError(t, err)
	assert.Empty(t, srv.lastRequest(t).Header.Get("Authorization"))

	_, err = srv.newClient(t, client.WithAPIKey("sk-given")).Stream(t.Context(), question())
	require.NoError(t, err)
	assert.Equal(t, "Bearer sk-given", srv.lastRequest(t).Header.Get("Authorization"))
}

func TestRequestWireFormat(t *testing.T) {
	srv := newLLMServer(t, streamOf(chunk(content("ok"), "stop")))
	req := host.NewRequest("").
		AddMessage(host.RoleSystem, host.Text{Text: "Be brief."}).
		AddMessage(host.RoleUser, host.Text{Text: "What is 21 + 21?"}).
		AddMessage(host.RoleAssistant,
			host.Thinking{Text: "I should use the tool."},
			host.Text{Text: "Calling add."},
			host.ToolCall{ID: "call_1", Name: "add", Arguments: []byte(`{"a":21,"b":21}`)},
			host.ToolCall{ID: "call_2", Name: "noargs"}).
		AddMessage(host.RoleTool,
			host.ToolResult{ToolCallID: "call_1", Name: "add", Content: "42"},
			host.ToolResult{ToolCallID: "call_2", Name: "noargs", Content: "boom", IsError: true}).
		AddTool(host.ToolDefinition{
			Name:        "add",
			Description: "Add two numbers and return their sum",
			InputSchema: []byte(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
		}).
		AddTool(host.ToolDefinition{Name: "noargs"})

	_, err := srv.newClient(t).Stream(t.Context(), req)
	require.NoError(t, err)

	body := srv.lastBody(t)
	assert.Equal(t, "test-model", body["model"], "the client's model fills an empty Request.Model")
	assert.Equal(t, true, body["stream"])
	want := `[
		{"role":"system","content":"Be brief."},
		{"role":"user","content":"What is 21 + 21?"},
		{"role":"assistant","content":"Calling add.","tool_calls":[
			{"id":"call_1","type":"function","function":{"name":"add","arguments":"{\"a\":21,\"b\":21}"}},
			{"id":"call_2","type":"function","function":{"name":"noargs","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"42"},
		{"role":"tool","tool_call_id":"call_2","content":"boom"}
	]`
	assert.JSONEq(t, want, mustJSON(t, body["messages"]))
	assert.JSONEq(t, `[
		{"type":"function","function":{"name":"add","description":"Add two numbers and return their sum",
			"parameters":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}}},
		{"type":"function","function":{"name":"noargs","parameters":{"type":"object","properties":{}}}}
	]`, mustJSON(t, body["tools"]))

	req.Model = "other-model"
	_, err = srv.newClient(t).Stream(t.Context(), req)
	require.NoError(t, err)
	assert.Equal(t, "other-model", srv.lastBody(t)["model"], "Request.Model wins")
}

func TestRequestInvalid(t *testing.T) {
	srv := newLLMServer(t, func(w http.ResponseWriter, _ *http.Request) {
		t.Error("an invalid request must not be sent")
	})
	for _, tc := range []struct {
		name string
		req  *host.Request
	}{
		{"tool call in a user message", host.NewRequest("").AddMessage(host.RoleUser, host.ToolCall{ID: "x", Name: "add"})},
		{"tool result without id", host.NewRequest("").AddMessage(host.RoleTool, host.ToolResult{Content: "42"})},
		{"text in a tool message", host.NewRequest("").AddMessage(host.RoleTool, host.Text{Text: "42"})},
		{"unknown role", host.NewRequest("").AddMessage("narrator", host.Text{Text: "Once upon a time"})},
		{"schema not an object", question().AddTool(host.ToolDefinition{Name: "add", InputSchema: []byte(`[1,2]`)})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := srv.newClient(t).Stream(t.Context(), tc.req)
			require.ErrorIs(t, err, client.ErrRequest)
			assert.Nil(t, res)
		})
	}
}

func TestResultMessagesContinueTheConversation(t *testing.T) {
	srv := newLLMServer(t, streamOf(
		chunk(content("Adding."), ""),
		chunk(toolDelta(0, "call_1", "add", `{"a":21,"b":21}`), ""),
		chunk(`{}`, "tool_calls"),
	))
	c := srv.newClient(t, client.WithPlugin(&adder{}))
	req := question()
	res, err := c.Stream(t.Context(), req)
	require.NoError(t, err)

	msgs := res.Messages()
	require.Len(t, msgs, 2)
	assert.Equal(t, host.Message{Role: host.RoleAssistant, Blocks: []host.Block{
		host.Text{Text: "Adding."},
		host.ToolCall{ID: "call_1", Name: "add", Arguments: []byte(`{"a":21,"b":21}`)},
	}}, msgs[0], "the executed call is restored")
	assert.Equal(t, host.Message{Role: host.RoleTool, Blocks: []host.Block{
		host.ToolResult{ToolCallID: "call_1", Name: "add", Content: "42"},
	}}, msgs[1])

	req.Messages = append(req.Messages, msgs...)
	_, err = c.Stream(t.Context(), req)
	require.NoError(t, err)
	assert.JSONEq(t, `[
		{"role":"user","content":"What is 21 + 21?"},
		{"role":"assistant","content":"Adding.","tool_calls":[
			{"id":"call_1","type":"function","function":{"name":"add","arguments":"{\"a\":21,\"b\":21}"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"42"}
	]`, mustJSON(t, srv.lastBody(t)["messages"]))
}
