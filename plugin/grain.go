package plugin

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/transport"
)

// DefaultDrainTimeout is how long a stopping grain lets its calls in flight
// finish ([WithDrainTimeout]). It is below [DefaultLossGrace], so that a
// member leaving gracefully answers its calls before callers give up.
const DefaultDrainTimeout = 2 * time.Second

// WithDrainTimeout sets how long a grain ([GrainProps]) that is being
// stopped (its member leaving, or it moving to another member) lets its
// calls in flight finish before its connection closes; default
// [DefaultDrainTimeout]. Zero or negative means the default.
func WithDrainTimeout(d time.Duration) Option {
	return func(o *options) { o.drainTimeout = d }
}

// GrainProps returns the Props of a supervisor meant to be a protoactor
// cluster grain (package grid builds its cluster kind from them). Spawned by
// the cluster, it learns its identity, connects to the server that
// transportFor(identity) names, and is spoken to like any supervisor, from
// any member, through [Attach]. The options that govern the connection
// itself apply here, on the hosting member: [WithLogger], [WithClientInfo],
// [WithConnectTimeout], [WithBackoff], [WithRestartBudget],
// [WithReconnectWait], [WithRetryIdempotent], [WithInputRequired],
// [WithClientOptions], [WithDrainTimeout], [WithToolRefresh] (the
// list_changed subscription). Those of calls (timeouts, status handlers,
// approval, progress, idle timeout, result cap) belong to the facade. A first connection that fails is retried,
// as with [Start]; an identity transportFor refuses makes the grain answer
// every call with that error.
func GrainProps(transportFor func(identity string) (transport.McpTransport, error), opts ...Option) *actor.Props {
	o := applyOptions(opts)
	base := o.connectionConfig(nil)
	sup := o.supervisorConfig(base)
	sup.RetryConnect = true
	sup.DrainTimeout = DefaultDrainTimeout
	if o.drainTimeout > 0 {
		sup.DrainTimeout = o.drainTimeout
	}
	sup.ForIdentity = func(identity string) (actors.ConnectionConfig, error) {
		t, err := transportFor(identity)
		if err != nil {
			return actors.ConnectionConfig{}, err
		}
		conn := base
		conn.Transport = t
		return conn, nil
	}
	return actors.NewSupervisorProps(sup)
}
