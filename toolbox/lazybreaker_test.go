package toolbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/countserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

func TestAFailedLazyStartIsTriedAgainOnlyByACallAfterTheCoolDown(t *testing.T) {
	tb, log := lazyVariant(t, variantExit, toolbox.WithPluginOptions(plugin.WithBreakerCoolDown(50*time.Millisecond, time.Hour)))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err := tb.CallTool(ctx, "c__echo", map[string]any{"text": "hi"}).Await(ctx)
	require.ErrorIs(t, err, plugin.ErrCircuitOpen)
	assert.Equal(t, 2, countserver.Starts(t, log), "the first run's and the lazy start")
	// Nothing starts it in the background; a call after the cool-down
	// tries once more, and its failure opens the breaker again.
	for countserver.Starts(t, log) == 2 && ctx.Err() == nil {
		_, err = tb.CallTool(ctx, "c__echo", map[string]any{"text": "hi"}).Await(ctx)
		require.ErrorIs(t, err, plugin.ErrCircuitOpen)
		time.Sleep(10 * time.Millisecond)
	}
	require.NoError(t, ctx.Err())
	assert.Equal(t, 3, countserver.Starts(t, log), "one try per cool-down")
	assert.Contains(t, err.Error(), "exit status 3")
	assert.ErrorIs(t, tb.Status()["c"].LastError, plugin.ErrCircuitOpen)
}
