//go:build !race

// Built without -race: see main_test.go.

package grid_test

import (
	"context"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/plugin"
)

func connect(t *testing.T, c *cluster.Cluster, server string, opts ...plugin.Option) *plugin.McpPlugin {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := grid.Connect(ctx, c, server, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func callText(t *testing.T, p *plugin.McpPlugin, tool string, args any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := p.CallTool(ctx, tool, args).Await(ctx)
	require.NoError(t, err, tool)
	return plugin.RenderResult(res)
}
