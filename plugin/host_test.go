package plugin_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/plugin"
)

// The host contract's names in package plugin are the names of package host:
// values pass between the two without conversion.
func TestHostContractNamesAreAliases(t *testing.T) {
	var p host.Plugin = plugin.Base{}
	var _ plugin.Plugin = p
	blocks := []host.Block{plugin.Text{Text: "x"}, host.ToolCall{ID: "1", Name: "add"}}
	chunk := &plugin.Chunk{Blocks: blocks}
	var _ *host.Chunk = chunk

	assert.Equal(t, 1, plugin.FirstToolCall(chunk.Blocks, map[string]bool{"add": true}))
	assert.Equal(t, -1, plugin.FirstToolCall(chunk.Blocks, map[string]bool{"sub": true}))
	assert.Equal(t, host.RoleTool, plugin.RoleTool)
	req := plugin.NewRequest("m").AddMessage(plugin.RoleUser, host.Text{Text: "hi"})
	assert.Equal(t, &host.Request{Model: "m", Messages: []host.Message{{Role: host.RoleUser, Blocks: []host.Block{host.Text{Text: "hi"}}}}}, req)
}
