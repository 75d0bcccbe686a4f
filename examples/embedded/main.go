package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/examples/demoserver"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// Sum asks the agent for a+b; it answers with a string.
type Sum struct{ A, B int }

// ServerPid asks the agent for the MCP server's pid; it answers with an int.
type ServerPid struct{}

// Agent is a host's actor that owns an MCP connection as its child.
type Agent struct {
	mcp    *actor.PID
	nextID uint64
	ready  bool
}

// Receive handles the agent's own protocol; tool calls complete through
// ReenterAfter, so the mailbox keeps moving while a tool runs.
func (a *Agent) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		cmd, args := demoserver.Self()
		a.mcp = ctx.Spawn(actors.NewSupervisorProps(actors.SupervisorConfig{
			Connection:     actors.ConnectionConfig{Transport: transport.NewStdio(cmd, args...)},
			InitialBackoff: 50 * time.Millisecond,
		}))
		ctx.ReenterAfter(ctx.RequestFuture(a.mcp, &messages.AwaitReady{}, 30*time.Second), func(res any, err error) {
			if r, ok := res.(*messages.Ready); ok {
				a.ready = true
				fmt.Printf("agent: MCP server ready with %d tools\n", len(r.Tools))
			} else {
				fmt.Println("agent: MCP server not ready:", res, err)
			}
		})
	case *Sum:
		args, _ := json.Marshal(map[string]int{"a": msg.A, "b": msg.B})
		a.callTool(ctx, "add", args, func(text string) any { return text })
	case *ServerPid:
		a.callTool(ctx, "pid", nil, func(text string) any { n, _ := strconv.Atoi(text); return n })
	}
}

// callTool sends one CallTool to the connection and answers the current
// message's sender when the result arrives.
func (a *Agent) callTool(ctx actor.Context, tool string, args json.RawMessage, answer func(string) any) {
	a.nextID++
	call := &messages.CallTool{ID: a.nextID, Name: tool, Arguments: args, Deadline: time.Now().Add(10 * time.Second)}
	ctx.ReenterAfter(ctx.RequestFuture(a.mcp, call, 15*time.Second), func(res any, err error) {
		reply, ok := res.(*messages.CallToolReply)
		switch {
		case err != nil:
			ctx.Respond(fmt.Errorf("%s: %w", tool, err))
		case !ok:
			ctx.Respond(fmt.Errorf("%s: unexpected reply %T", tool, res))
		case reply.Failure != nil:
			ctx.Respond(reply.Failure)
		default:
			ctx.Respond(answer(plugin.RenderResult(reply.Result)))
		}
	})
}

func main() {
	demoserver.RunIfAsked()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "embedded:", err)
		os.Exit(1)
	}
}

func run() error {
	// The host's system; its logs are the host's business (silenced here).
	system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.DiscardHandler)
	}))
	agent := system.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return &Agent{} }))
	defer func() { _ = system.Root.StopFuture(agent).Wait() }() // stops the MCP child too

	ask := func(msg any) (any, error) {
		res, err := system.Root.RequestFuture(agent, msg, 20*time.Second).Result()
		if err != nil {
			return nil, err
		}
		if e, ok := res.(error); ok {
			return nil, e
		}
		return res, nil
	}
	sum, err := ask(&Sum{A: 20, B: 22})
	if err != nil {
		return err
	}
	fmt.Println("agent: add(20, 22) =", sum)
	pid, err := ask(&ServerPid{})
	if err != nil {
		return err
	}
	fmt.Println("agent: killing the MCP server, pid", pid)
	if err := kill(pid.(int)); err != nil {
		return err
	}
	// Calls made before the supervisor notices fail as calls in flight at
	// the crash; retry until the restarted server answers.
	deadline := time.Now().Add(20 * time.Second)
	for {
		sum, err = ask(&Sum{A: 21, B: 21})
		if err == nil || time.Now().After(deadline) {
			break
		}
		fmt.Println("agent: call failed during the restart:", err)
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	pid2, err := ask(&ServerPid{})
	if err != nil {
		return err
	}
	fmt.Printf("agent: after the restart add(21, 21) = %s, from the new server pid %d\n", sum, pid2)
	return nil
}

// kill ends the process pid at once, on any system: SIGKILL on Unix,
// TerminateProcess on Windows.
func kill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
