package plugin

import (
	"reflect"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/transport"
)

// DefaultDrainTimeout is how long a stopping supervisor spawned from
// [SupervisorConfigOf] lets its calls in flight finish unless
// [WithDrainTimeout] says otherwise. It is below [DefaultLossGrace], so
// that a member leaving gracefully answers its calls before callers give
// up.
const DefaultDrainTimeout = 2 * time.Second

// WithDrainTimeout sets how long a supervisor spawned from
// [SupervisorConfigOf] that is being stopped lets its calls in flight
// finish before its connection closes; default [DefaultDrainTimeout]. Zero
// or negative means the default. It has no effect elsewhere.
func WithDrainTimeout(d time.Duration) Option {
	return func(o *options) {
		o.note("WithDrainTimeout", roleHost)
		o.drainTimeout = d
	}
}

// SupervisorConfigOf is the supervisor that opts describe, for a package
// that spawns supervisors of its own and speaks to them through a facade
// (package grid does, for its grains): the options of the connection
// itself ([WithLogger], [WithClientInfo], [WithConnectTimeout],
// [WithClientOptions], [WithInputRequired], [WithToolRefresh], the
// telemetry providers), of supervision ([WithBackoff],
// [WithRestartBudget], [WithBreakerCoolDown], [WithReconnectWait],
// [WithRetryIdempotent]) and [WithDrainTimeout]. Its Connection has no
// transport; a first connection that fails is retried. An option of calls
// or of the local plugin (timeouts, status handlers, approval, progress,
// the idle timeout, the result cap, the actor system, spawn, loss grace,
// WithoutSupervision) has no effect there and makes it fail with
// [ErrValidation] naming it.
func SupervisorConfigOf(opts ...Option) (actors.SupervisorConfig, error) {
	o := applyOptions(opts)
	if err := o.misplaced(roleHost, "", "configure"); err != nil {
		return actors.SupervisorConfig{}, err
	}
	sup := o.supervisorConfig(o.connectionConfig(nil))
	sup.RetryConnect = true
	sup.DrainTimeout = DefaultDrainTimeout
	if o.drainTimeout > 0 {
		sup.DrainTimeout = o.drainTimeout
	}
	return sup, nil
}

// IdentityProps returns the Props of a supervisor that learns which server
// it is from a message: identityOf names the identity in the message that
// carries it (nil for others), and transportFor gives that identity's
// transport. Until then it connects nowhere. opts are [SupervisorConfigOf]'s;
// a misplaced one fails every call with [ErrValidation] naming it. Package
// grid builds its grains on it.
func IdentityProps(identityOf func(msg any) (string, bool), transportFor func(identity string) (transport.McpTransport, error), opts ...Option) *actor.Props {
	sup, err := SupervisorConfigOf(opts...)
	sup.IdentityOf = identityOf
	sup.ForIdentity = func(identity string) (actors.ConnectionConfig, error) {
		if err != nil {
			return actors.ConnectionConfig{}, err
		}
		t, terr := transportFor(identity)
		if terr != nil {
			return actors.ConnectionConfig{}, terr
		}
		conn := sup.Connection
		conn.Transport = t
		return conn, nil
	}
	return actors.NewSupervisorProps(sup)
}

// GrainProps returns the Props of a supervisor that takes its transport
// from transportFor(identity) once a message with an Identity field that
// has GetIdentity() string (protoactor's cluster.ClusterInit) names it.
//
// Deprecated: package grid builds its grains itself (grid.NewKind), on
// [IdentityProps].
func GrainProps(transportFor func(identity string) (transport.McpTransport, error), opts ...Option) *actor.Props {
	return IdentityProps(identityField, transportFor, opts...)
}

// identityField reads the identity of a message whose Identity field has
// GetIdentity() string, without naming its package.
func identityField(msg any) (string, bool) {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return "", false
	}
	f := v.Elem().FieldByName("Identity")
	if !f.IsValid() || !f.CanInterface() || (f.Kind() == reflect.Pointer && f.IsNil()) {
		return "", false
	}
	id, ok := f.Interface().(interface{ GetIdentity() string })
	if !ok {
		return "", false
	}
	return id.GetIdentity(), true
}
