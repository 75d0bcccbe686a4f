package plugin_test

import (
	"context"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"

	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/plugin"
)

// Each option's type says where it takes effect: the compiler refuses one
// given where it means nothing. The table is every option of the package,
// with the places it belongs to.
func TestOptionsAreTypedByWhereTheyTakeEffect(t *testing.T) {
	const (
		local  = 1 << iota // plugin.Connect
		server             // a toolbox's servers
		facade             // plugin.Follow, grid.Connect
		host               // plugin.SupervisorConfigOf, grid.WithPluginOptions
	)
	const (
		call       = local | server | facade
		connection = local | server | host
		common     = call | connection
	)
	cases := []struct {
		name   string
		opt    any
		places int
	}{
		{"WithActorSystem", plugin.WithActorSystem(nil), local},
		{"WithSpawn", plugin.WithSpawn(nil), local},
		{"WithoutSupervision", plugin.WithoutSupervision(), local},
		{"WithRetryConnect", plugin.WithRetryConnect(), local},
		{"WithLossGrace", plugin.WithLossGrace(time.Second), facade | server},
		{"WithApproval", plugin.WithApproval(nil), call},
		{"WithProgress", plugin.WithProgress(nil), call},
		{"WithIdleTimeout", plugin.WithIdleTimeout(time.Second), call},
		{"WithMaxResultBytes", plugin.WithMaxResultBytes(1), call},
		{"WithDefaultCallTimeout", plugin.WithDefaultCallTimeout(time.Second), call},
		{"WithCallTimeoutCap", plugin.WithCallTimeoutCap(time.Second), call},
		{"WithStatusHandler", plugin.WithStatusHandler(nil), call},
		{"WithClientInfo", plugin.WithClientInfo(nil), connection},
		{"WithClientOptions", plugin.WithClientOptions(nil), connection},
		{"WithInputRequired", plugin.WithInputRequired(plugin.InputHandlers{}), connection},
		{"WithBackoff", plugin.WithBackoff(time.Millisecond, time.Second), connection},
		{"WithRestartBudget", plugin.WithRestartBudget(1, time.Second), connection},
		{"WithBreakerCoolDown", plugin.WithBreakerCoolDown(time.Second, time.Second), connection},
		{"WithReconnectWait", plugin.WithReconnectWait(time.Second), connection},
		{"WithRetryIdempotent", plugin.WithRetryIdempotent(), connection},
		{"WithConnectTimeout", plugin.WithConnectTimeout(time.Second), common},
		{"WithLogger", plugin.WithLogger(nil), common},
		{"WithToolRefresh", plugin.WithToolRefresh(), common},
		{"WithTracerProvider", plugin.WithTracerProvider(nil), common},
		{"WithMeterProvider", plugin.WithMeterProvider(nil), common},
	}
	for _, c := range cases {
		got := 0
		if _, ok := c.opt.(plugin.Option); ok {
			got |= local
		}
		if _, ok := c.opt.(plugin.ServerOption); ok {
			got |= server
		}
		if _, ok := c.opt.(plugin.FacadeOption); ok {
			got |= facade
		}
		if _, ok := c.opt.(plugin.HostOption); ok {
			got |= host
		}
		assert.Equal(t, c.places, got, "%s takes effect in the wrong places", c.name)
	}
}

// The options of the connection reach the supervisor config built from
// them.
func TestSupervisorConfigOfCarriesTheConnectionOptions(t *testing.T) {
	sup := plugin.SupervisorConfigOf(plugin.WithConnectTimeout(7*time.Second), plugin.WithBackoff(time.Millisecond, time.Second))
	assert.Equal(t, 7*time.Second, sup.Connection.ConnectTimeout)
	assert.Equal(t, time.Millisecond, sup.InitialBackoff)
	assert.True(t, sup.RetryConnect)
	assert.Nil(t, sup.Connection.Transport, "the host sets the transport")
}

// The connect timeout a toolbox reads from its plugin options is the last
// one given, else the default.
func TestConnectTimeoutOf(t *testing.T) {
	assert.Equal(t, plugin.DefaultConnectTimeout, plugin.ConnectTimeoutOf())
	assert.Equal(t, 2*time.Second, plugin.ConnectTimeoutOf(plugin.WithConnectTimeout(time.Second), plugin.WithLogger(nil),
		plugin.WithConnectTimeout(2*time.Second)))
}

// A facade's connect timeout bounds its wait for the connection's first
// answer: a link that never answers fails Follow once it has passed.
func TestFollowWaitsAtMostTheConnectTimeout(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	defer system.Shutdown()
	start := time.Now()
	_, err := plugin.Follow(context.Background(), system, "never", func(plugin.LinkSetup) plugin.Link { return silentLink{} },
		plugin.WithConnectTimeout(50*time.Millisecond))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second)
}

// silentLink is a link whose connection never answers.
type silentLink struct{}

func (silentLink) Send(context.Context, *messages.CallTool) error { return nil }
func (silentLink) Cancel(uint64)                                  {}
func (silentLink) AwaitReady(ctx context.Context) (*messages.Ready, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}
func (silentLink) Reconnect(ctx context.Context) (*messages.Ready, error) {
	return silentLink{}.AwaitReady(ctx)
}
func (silentLink) RefreshTools(func()) {}
func (silentLink) Close()              {}
