package plugin_test

import (
	"context"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// An option passed where it has no effect fails with ErrValidation naming
// it, before anything is spawned or located.
func TestOptionsWithNoEffectFailByName(t *testing.T) {
	never := transport.NewStdio("/nonexistent/never-started")

	_, err := plugin.Connect(context.Background(), never, plugin.WithLossGrace(time.Second))
	require.ErrorIs(t, err, plugin.ErrValidation)
	assert.Contains(t, err.Error(), "WithLossGrace")

	_, err = plugin.Start(never, plugin.WithLossGrace(time.Second))
	require.ErrorIs(t, err, plugin.ErrValidation)
	assert.Contains(t, err.Error(), "WithLossGrace")

	system := actor.NewActorSystem()
	defer system.Shutdown()
	locate := func(context.Context) (*actor.PID, error) {
		t.Error("a facade with a misplaced option located its actor")
		return nil, context.Canceled
	}
	_, err = attachTo(context.Background(), system, "s", locate,
		plugin.WithBackoff(time.Millisecond, time.Second), plugin.WithConnectTimeout(time.Second), plugin.WithApproval(nil))
	require.ErrorIs(t, err, plugin.ErrValidation)
	assert.Contains(t, err.Error(), "WithBackoff, WithConnectTimeout")
	assert.NotContains(t, err.Error(), "WithApproval")

	_, err = plugin.SupervisorConfigOf(plugin.WithDefaultCallTimeout(time.Second), plugin.WithProgress(func(plugin.Progress) {}),
		plugin.WithBackoff(time.Millisecond, time.Second))
	require.ErrorIs(t, err, plugin.ErrValidation)
	assert.Contains(t, err.Error(), "WithDefaultCallTimeout, WithProgress")
	assert.NotContains(t, err.Error(), "WithBackoff")
}

// The options of the connection reach the supervisor config built from
// them.
func TestSupervisorConfigOfCarriesTheConnectionOptions(t *testing.T) {
	sup, err := plugin.SupervisorConfigOf(plugin.WithConnectTimeout(7*time.Second), plugin.WithBackoff(time.Millisecond, time.Second))
	require.NoError(t, err)
	assert.Equal(t, 7*time.Second, sup.Connection.ConnectTimeout)
	assert.Equal(t, time.Millisecond, sup.InitialBackoff)
	assert.True(t, sup.RetryConnect)
	assert.Nil(t, sup.Connection.Transport, "the host sets the transport")
}

// The deprecated timeout names are the new ones.
func TestDeprecatedTimeoutNamesForward(t *testing.T) {
	_, err := plugin.SupervisorConfigOf(plugin.WithCallTimeout(time.Second), plugin.WithToolTimeout(time.Second))
	require.ErrorIs(t, err, plugin.ErrValidation)
	assert.Contains(t, err.Error(), "WithDefaultCallTimeout, WithCallTimeoutCap")
}
