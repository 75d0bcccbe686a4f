package benchmarks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/test"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/remote"

	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/internal/core/wire"
	"github.com/cuca-go/mcpconnector/transport"
)

// Scenarios of the grid layer, each beside the layer below.
const (
	ScenarioGridHook = "hook call, stdio, grain on another member"
	ScenarioGridWait = "throughput, 20 ms tool, grain on another member"
)

// Subject names of the grid scenarios.
const (
	SubjectGridHook = "grid hook"
	// SubjectRemoteEcho is the floor of the grid's hop: an Ask of a
	// trivial grain on the other member that answers at once, over the
	// same protoactor remote, with none of this module in between.
	SubjectRemoteEcho = "protoactor remote echo (floor of the hop)"
)

// echoKind is the kind of the floor's grain: it answers the wire form of
// an AwaitReady with the same (a protobuf message, as this module's
// messages travel between members).
const echoKind = "bench-echo"

type echoGrain struct{}

func (echoGrain) Receive(ctx actor.Context) {
	if _, ok := ctx.Message().(*wire.WireAwaitReady); ok {
		ctx.Respond(&wire.WireAwaitReady{})
	}
}

// RemoteEcho asks the echo grain on the other member of a [StartGrid]
// cluster, as a subject.
func RemoteEcho(a *cluster.Cluster) *Subject {
	return &Subject{Name: SubjectRemoteEcho, New: func() Op {
		return func(context.Context) error {
			pid := a.Get("echo", echoKind)
			if pid == nil {
				return errors.New("no echo grain")
			}
			res, err := a.ActorSystem.Root.RequestFuture(pid, &wire.WireAwaitReady{}, 10*time.Second).Result()
			if err != nil {
				return err
			}
			if _, ok := res.(*wire.WireAwaitReady); !ok {
				return fmt.Errorf("echo answered %T", res)
			}
			return nil
		}
	}}
}

// StartGrid starts two cluster members in this process over loopback gRPC:
// a, where the caller runs, which hosts no grain, and another, which hosts
// the grain of server s00, running srv. stop shuts both down.
func StartGrid(ctx context.Context, srv transport.Stdio) (a *cluster.Cluster, stop func(), err error) {
	agent := test.NewInMemAgent()
	cfg := ToolboxConfig(1, srv)
	name := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	quiet := actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) })
	var members []*cluster.Cluster
	for _, host := range []bool{false, true} {
		var kinds []*cluster.Kind
		if host {
			kinds = append(kinds, grid.NewKind(cfg),
				cluster.NewKind(echoKind, actor.PropsFromProducer(func() actor.Actor { return echoGrain{} })))
		}
		c := cluster.New(actor.NewActorSystem(quiet), cluster.Configure(name, test.NewTestProvider(agent), disthash.New(),
			remote.Configure("127.0.0.1", 0), cluster.WithKinds(kinds...)))
		c.StartMember()
		members = append(members, c)
	}
	stop = func() {
		var wg sync.WaitGroup
		for _, c := range members {
			wg.Go(func() { c.Shutdown(true) })
		}
		wg.Wait()
	}
	for members[0].MemberList.Members().Len() != 2 {
		select {
		case <-ctx.Done():
			stop()
			return nil, nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return members[0], stop, nil
}

// gridHook times a hook call through a grain on another member against the
// same call through a local plugin, interleaved, and 16 callers of the
// 20 ms tool through the grain against one.
func (r *runner) gridHook(ctx context.Context) error {
	if raceEnabled {
		r.progress("grid: skipped under -race (protoactor's cluster races; see grid/main_test.go)")
		return nil
	}
	a, stop, err := StartGrid(ctx, r.stdio)
	if err != nil {
		return err
	}
	defer stop()
	p, err := grid.Connect(ctx, a, "s00")
	if err != nil {
		return err
	}
	defer p.Close()
	remoteHook := PluginHook(p, InstantCall)
	remoteHook.Name = SubjectGridHook
	res, err := Interleave(ctx, []*Subject{remoteHook, PluginHook(r.plugin, InstantCall), RemoteEcho(a)},
		r.cfg.HookRounds, r.cfg.HookPerRound, r.cfg.HookWarmup)
	if err != nil {
		return err
	}
	r.add(ScenarioGridHook, res...)

	waitHook := PluginHook(p, WaitCall)
	waitHook.Name = SubjectGridHook
	for _, n := range []int{1, 16} {
		res, err := Throughput(ctx, waitHook, n, r.cfg.WaitFor)
		if err != nil {
			return err
		}
		r.add(ScenarioGridWait, res)
	}
	return nil
}
