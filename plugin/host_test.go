package plugin_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cuca-go/mcpconnector/host"
)

// The host contract's names in package plugin are the names of package host:
// values pass between the two without conversion.
func TestHostContractNamesAreAliases(t *testing.T) {
	var p host.Plugin = host.Base{}
	var _ host.Plugin = p
	blocks := []host.Block{host.Text{Text: "x"}, host.ToolCall{ID: "1", Name: "add"}}
	chunk := &host.Chunk{Blocks: blocks}
	var _ *host.Chunk = chunk

	assert.Equal(t, 1, host.FirstToolCall(chunk.Blocks, map[string]bool{"add": true}))
	assert.Equal(t, -1, host.FirstToolCall(chunk.Blocks, map[string]bool{"sub": true}))
	assert.Equal(t, host.RoleTool, host.RoleTool)
	req := host.NewRequest("m").AddMessage(host.RoleUser, host.Text{Text: "hi"})
	assert.Equal(t, &host.Request{Model: "m", Messages: []host.Message{{Role: host.RoleUser, Blocks: []host.Block{host.Text{Text: "hi"}}}}}, req)
}
