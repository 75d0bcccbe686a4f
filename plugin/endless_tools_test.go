package plugin_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
)

func TestEndlessToolListFailsInBoundedMemory(t *testing.T) {
	leakCheck(t)
	// Every page names a new cursor and 1,000 new tools: pagination must
	// end in a clear error, by a bound on what it collects rather than by
	// the clock, before the tool list exhausts memory.
	var err error
	peak := peakHeapDuring(func() {
		_, err = plugin.Connect(context.Background(), testserver.Raw(t, "tools", "count=0", "page=1000", "endless=1"),
			plugin.WithConnectTimeout(10*time.Second))
	})
	require.ErrorIs(t, err, plugin.ErrInternal)
	t.Logf("error: %v; peak heap %d MiB", err, peak>>20)
	assert.NotContains(t, err.Error(), "deadline exceeded", "a bound, not the connect timeout, ends the listing")
	assert.Less(t, peak, uint64(128<<20), "an endless tool list is cut off before it holds 128 MiB")
}
