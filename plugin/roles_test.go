package plugin_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/core/link"
	"github.com/cuca-go/mcpconnector/internal/core/pluginopt"
	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/plugin"
)

// Each option says where it takes effect, so that one given where it
// means nothing fails there. The table is every option of the package,
// with the places it belongs to.
func TestOptionsSayWhereTheyTakeEffect(t *testing.T) {
	const (
		local  = pluginopt.Local  // plugin.Connect
		server = pluginopt.Server // a toolbox's servers
		facade = pluginopt.Facade // grid.Connect
		host   = pluginopt.Host   // grid.WithPluginOptions
	)
	const (
		call       = local | server | facade
		connection = local | server | host
		common     = call | connection
	)
	cases := []struct {
		name   string
		opt    plugin.Option
		places pluginopt.Place
	}{
		{"WithActorSystem", plugin.WithActorSystem(nil), common},
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
		{"WithTasks", plugin.WithTasks(plugin.TaskOptions{}), common},
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
		o, ok := c.opt.(pluginopt.Option)
		require.True(t, ok, c.name)
		assert.Equal(t, c.places, o.Where(), "%s takes effect in the wrong places", c.name)
		assert.Equal(t, "plugin."+c.name, o.Name())
	}
	// Connect refuses a facade's option, and the misplaced option is named.
	_, err := plugin.Connect(t.Context(), nil, plugin.WithLogger(nil), plugin.WithLossGrace(time.Second))
	assert.ErrorIs(t, err, plugin.ErrValidation)
	assert.ErrorContains(t, err, "plugin.WithLossGrace")
	// A facade refuses an option of the connection.
	system := actor.NewActorSystem(quiet.Actors())
	defer system.Shutdown()
	_, err = plugin.Connect(t.Context(), link.Target{System: system, Server: "x", NewLink: func(link.Setup) link.Link { return silentLink{} }},
		plugin.WithApproval(nil), plugin.WithBackoff(time.Second, time.Second))
	assert.ErrorIs(t, err, plugin.ErrValidation)
	assert.ErrorContains(t, err, "plugin.WithBackoff")
	other := actor.NewActorSystem(quiet.Actors())
	defer other.Shutdown()
	_, err = plugin.Connect(t.Context(), link.Target{System: system, Server: "x", NewLink: func(link.Setup) link.Link { return silentLink{} }},
		plugin.WithActorSystem(other))
	assert.ErrorIs(t, err, plugin.ErrValidation, "a facade's actor system is the cluster's")
}

// The options of the connection reach the supervisor config that the
// module's other packages read of them (grid's grains).
func TestPluginOptionsCarryTheConnectionOptions(t *testing.T) {
	sup := pluginopt.Of([]plugin.Option{plugin.WithConnectTimeout(7 * time.Second), plugin.WithBackoff(time.Millisecond, time.Second),
		plugin.WithBreakerCoolDown(3*time.Second, time.Hour)}).Supervisor
	assert.Equal(t, 7*time.Second, sup.Connection.ConnectTimeout)
	assert.Equal(t, time.Millisecond, sup.InitialBackoff)
	assert.Equal(t, 3*time.Second, sup.CoolDown)
	assert.Equal(t, time.Hour, sup.MaxCoolDown)
	assert.Nil(t, sup.Connection.Transport, "the host sets the transport")
}

// The connect timeout a toolbox reads from its plugin options is the last
// one given, else the default; the approval function is the host's.
func TestWhatAToolboxReadsOfItsPluginOptions(t *testing.T) {
	assert.Equal(t, actors.DefaultConnectTimeout, pluginopt.Of([]plugin.Option{}).ConnectTimeout())
	v := pluginopt.Of([]plugin.Option{plugin.WithConnectTimeout(time.Second), plugin.WithLogger(nil),
		plugin.WithConnectTimeout(2 * time.Second)})
	assert.Equal(t, 2*time.Second, v.ConnectTimeout())
	assert.Nil(t, v.Approve)

	var got plugin.ApprovalRequest
	denied := errors.New("no")
	v = pluginopt.Of([]plugin.Option{plugin.WithApproval(func(_ context.Context, req plugin.ApprovalRequest) error {
		got = req
		return denied
	})})
	require.NotNil(t, v.Approve)
	assert.ErrorIs(t, v.Approve(t.Context(), "s", "tool", "c1", []byte(`{}`)), denied)
	assert.Equal(t, plugin.ApprovalRequest{Server: "s", Tool: "tool", CallID: "c1", Arguments: []byte(`{}`)}, got)
	assert.Nil(t, pluginopt.Of([]plugin.Option{plugin.WithApproval(func(context.Context, plugin.ApprovalRequest) error { return nil }),
		plugin.WithApproval(nil)}).Approve, "a nil approve turns approval off")
}

// The input handlers apply to the client options whatever the order the
// two options come in.
func TestInputHandlersApplyInEitherOrder(t *testing.T) {
	base := &mcp.ClientOptions{}
	roots := []*mcp.Root{{URI: "file:///w"}}
	for _, opts := range [][]plugin.Option{
		{plugin.WithClientOptions(base), plugin.WithInputRequired(plugin.InputHandlers{Roots: roots})},
		{plugin.WithInputRequired(plugin.InputHandlers{Roots: roots}), plugin.WithClientOptions(base)},
	} {
		conn := pluginopt.Of(opts).Supervisor.Connection
		require.NotNil(t, conn.ClientOptions)
		assert.NotSame(t, base, conn.ClientOptions, "the caller's stays as it was")
		assert.NotNil(t, conn.ClientOptions.Capabilities.RootsV2)
		assert.Equal(t, roots, conn.Roots)
	}
}

// A facade's connect timeout bounds its wait for the connection's first
// answer: a link that never answers fails Follow once it has passed.
func TestFollowWaitsAtMostTheConnectTimeout(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	defer system.Shutdown()
	start := time.Now()
	_, err := plugin.Connect(context.Background(), link.Target{System: system, Server: "never", NewLink: func(link.Setup) link.Link { return silentLink{} }},
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
