//go:build !race && unix

// Built without -race: see main_test.go; unix for the gate server's FIFOs.

package grid_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
)

// A caller on one member gives up; the call is cancelled on the server of
// the member that hosts the grain.
func TestCancellationReachesTheHostingMember(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	cmd, args := grid.GateCommand(t)
	cfg := &mcpconfig.Config{Servers: map[string]*mcpconfig.Server{
		"gate": {Name: "gate", Type: mcpconfig.TypeStdio, Command: cmd, Args: args, Env: map[string]string{"GORACE": "atexit_sleep_ms=0"}},
	}}
	members := startMembers(t, 2, cfg, plugin.WithLogger(zap.New(core)))
	_, others := hostOf(t, members, "gate")
	p := connect(t, others[0], "gate")

	// A cancel, not a deadline: a deadline also travels with the call and
	// may end it on the hosting member first. It comes once the call has
	// reached the server.
	gate := grid.NewGate(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := p.CallTool(ctx, "gate", gate.Args()).Await(ctx)
		done <- err
	}()
	gate.AwaitStarted(t)
	cancel()
	err := <-done
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	// The server's handler says on stderr that it saw the cancellation;
	// the hosting member logs the line.
	cancelled := func() bool {
		return logs.FilterMessage("mcp server stderr").FilterField(zap.String("line", "gate: cancelled")).Len() == 1
	}
	require.Eventually(t, cancelled, time.Minute, 10*time.Millisecond, "the server's handler saw the cancellation")
}
