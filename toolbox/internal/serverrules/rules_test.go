package serverrules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/mcpconfig"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func ptr(s string) *string { return &s }

// A tool's mode: its own, else the server's, else auto for trust; the
// calls run one after another only when parallelToolCalls is false.
func TestToolApprovalAndSerialCallsOfParsedEntries(t *testing.T) {
	cfg, err := mcpconfig.Parse([]byte(`{"mcpServers": {
"a":{"command":"x","parallelToolCalls":false,"approval":"writes",
     "tools":{"read":{"approval":"auto"},"rm":{"approval":"approve"},"plain":{}}},
"b":{"command":"y","parallelToolCalls":true},
"c":{"command":"z"},
"t":{"command":"z","trust":true},
"cline":{"command":"x","alwaysAllow":["read","write"],"autoApprove":["list"],"tools":{"write":{"approval":"prompt"}}}}}`))
	require.NoError(t, err)
	require.Empty(t, cfg.Problems)
	a := cfg.Servers["a"]
	assert.True(t, SerialCalls(a))
	assert.Equal(t, mcpconfig.ApprovalAuto, ToolApproval(a, "read"))
	assert.Equal(t, mcpconfig.ApprovalApprove, ToolApproval(a, "rm"))
	assert.Equal(t, mcpconfig.ApprovalWrites, ToolApproval(a, "plain"), "a tool without a mode has the server's")
	assert.Equal(t, mcpconfig.ApprovalWrites, ToolApproval(a, "unlisted"))

	assert.False(t, SerialCalls(cfg.Servers["b"]))
	assert.False(t, SerialCalls(cfg.Servers["c"]), "absent is parallel")
	assert.Equal(t, mcpconfig.ApprovalUnset, ToolApproval(cfg.Servers["c"], "x"))
	assert.Equal(t, mcpconfig.ApprovalAuto, ToolApproval(cfg.Servers["t"], "x"), "Gemini CLI's trust")

	cline := cfg.Servers["cline"]
	assert.Equal(t, mcpconfig.ApprovalAuto, ToolApproval(cline, "read"))
	assert.Equal(t, mcpconfig.ApprovalAuto, ToolApproval(cline, "list"))
	assert.Equal(t, mcpconfig.ApprovalPrompt, ToolApproval(cline, "write"), "the tool's own mode wins")
	assert.Equal(t, mcpconfig.ApprovalUnset, ToolApproval(cline, "other"))
}

// A Server built by hand with Trust and no mode is auto too.
func TestToolApprovalTrustByHand(t *testing.T) {
	s := &mcpconfig.Server{Trust: true, Tools: map[string]mcpconfig.Tool{"w": {Approval: mcpconfig.ApprovalPrompt}}}
	assert.Equal(t, mcpconfig.ApprovalAuto, ToolApproval(s, "x"))
	assert.Equal(t, mcpconfig.ApprovalPrompt, ToolApproval(s, "w"))
}

// Windsurf's disabledTools and Codex's disabled_tools are exclusions.
func TestAllowsToolOfParsedEntries(t *testing.T) {
	cfg, err := mcpconfig.Parse([]byte(`{"mcpServers": {"r": {"serverUrl": "https://h/mcp", "disabledTools": ["drop"]}}}`))
	require.NoError(t, err)
	assert.False(t, AllowsTool(cfg.Servers["r"], "drop"))
	assert.True(t, AllowsTool(cfg.Servers["r"], "keep"))

	cfg, err = mcpconfig.Parse([]byte("[mcp_servers.figma]\nurl = \"https://mcp.figma.com/mcp\"\ndisabled_tools = [\"delete_*\"]\n"))
	require.NoError(t, err)
	assert.False(t, AllowsTool(cfg.Servers["figma"], "delete_file"))
	assert.True(t, AllowsTool(cfg.Servers["figma"], "get_file"))
}

func TestServerAllowsTool(t *testing.T) {
	cases := []struct {
		name             string
		include, exclude []string
		allowed, denied  []string
	}{
		{"no filters", nil, nil, []string{"a", "", "anything*"}, nil},
		{"include exact", []string{"read", "write"}, nil, []string{"read", "write"}, []string{"reads", "rea", "delete"}},
		{"include glob", []string{"search_*"}, nil, []string{"search_", "search_web"}, []string{"search", "web_search"}},
		{"exclude", nil, []string{"delete_*", "drop"}, []string{"read", "drops"}, []string{"delete_all", "drop"}},
		{"exclude wins", []string{"*"}, []string{"rm"}, []string{"ls"}, []string{"rm"}},
		{"exclude wins over exact include", []string{"rm"}, []string{"r*"}, nil, []string{"rm", "ls"}},
		{"? and [ are literal", []string{"a?", "[x]"}, nil, []string{"a?", "[x]"}, []string{"ab", "x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &mcpconfig.Server{Name: "s", IncludeTools: c.include, ExcludeTools: c.exclude}
			for _, tool := range c.allowed {
				assert.True(t, AllowsTool(s, tool), "%q should be allowed", tool)
			}
			for _, tool := range c.denied {
				assert.False(t, AllowsTool(s, tool), "%q should be denied", tool)
			}
		})
	}
}

func TestServerToolPrefix(t *testing.T) {
	assert.Equal(t, "github__", ToolPrefix(&mcpconfig.Server{Name: "github"}))
	assert.Equal(t, "", ToolPrefix(&mcpconfig.Server{Name: "github", Prefix: ptr("")}))
	assert.Equal(t, "gh_", ToolPrefix(&mcpconfig.Server{Name: "github", Prefix: ptr("gh_")}))
	assert.Equal(t, "my.server__", ToolPrefix(&mcpconfig.Server{Name: "my.server"}), "not sanitised here")
}
