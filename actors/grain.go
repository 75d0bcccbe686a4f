package actors

import (
	"context"
	"errors"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
)

// GrainKind is the protoactor cluster kind of MCP connection grains: an
// [McpSupervisor] (and its [McpConnection]) whose cluster identity is the
// name of a server in the mcp.json every member loads.
const GrainKind = "mcp-connection"

// LocateGrain returns a function that finds the grain of server in c: its
// PID on whichever member the identity lookup chooses, activated there if
// needed. The lookup does not take a context; ctx ends the wait, not the
// lookup.
func LocateGrain(c *cluster.Cluster, server string) func(ctx context.Context) (*actor.PID, error) {
	return func(ctx context.Context) (*actor.PID, error) {
		found := make(chan *actor.PID, 1)
		go func() { found <- c.Get(server, GrainKind) }()
		select {
		case pid := <-found:
			if pid == nil {
				return nil, fmt.Errorf("no member could activate the %s grain %q", GrainKind, server)
			}
			return pid, nil
		case <-ctx.Done():
			return nil, errors.Join(fmt.Errorf("locating the %s grain %q", GrainKind, server), ctx.Err())
		}
	}
}
