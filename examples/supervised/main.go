package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/examples/demoserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

func main() {
	demoserver.RunIfAsked()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "supervised:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd, args := demoserver.Self()
	p, err := plugin.Connect(ctx, transport.NewStdio(cmd, args...),
		plugin.WithBackoff(100*time.Millisecond, 2*time.Second),
		plugin.WithRestartBudget(5, time.Minute),
		plugin.WithStatusHandler(func(s plugin.Status) {
			line := fmt.Sprintf("  status: %s (restarts: %d)", s.State, s.Restarts)
			switch {
			case s.LastError != nil && s.State == actors.Reconnecting:
				line += "\n    cause: " + s.LastError.Error()
			case s.State == actors.Ready && s.LastFailure != nil:
				// Ready carries no error of the past; the last failure
				// stays readable apart.
				line += fmt.Sprintf("\n    recovered from (%s): %v", s.LastFailureAt.Format(time.TimeOnly), s.LastFailure)
			}
			fmt.Println(line)
		}))
	if err != nil {
		return err
	}
	defer p.Close()

	pid, err := call(ctx, p, "pid", nil)
	if err != nil {
		return err
	}
	fmt.Println("server pid:", pid)
	sum, err := call(ctx, p, "add", map[string]any{"a": 20, "b": 22})
	if err != nil {
		return err
	}
	fmt.Println("add(20, 22) =", sum)

	n, _ := strconv.Atoi(pid)
	fmt.Println("killing the server with SIGKILL")
	if err := kill(n); err != nil {
		return err
	}
	// Wait until the supervisor has noticed; a call made in between is a
	// call in flight at the crash, and fails.
	for p.Status().State == actors.Ready && p.Status().Restarts == 0 {
		time.Sleep(time.Millisecond)
	}
	sum, err = call(ctx, p, "add", map[string]any{"a": 21, "b": 21})
	if err != nil {
		return err
	}
	pid, err = call(ctx, p, "pid", nil)
	if err != nil {
		return err
	}
	fmt.Printf("after the restart: add(21, 21) = %s, from the new server pid %s\n", sum, pid)
	return nil
}

func call(ctx context.Context, p *plugin.McpPlugin, tool string, args any) (string, error) {
	res, err := p.CallTool(ctx, tool, args).Await(ctx)
	if err != nil {
		return "", err
	}
	return plugin.RenderResult(res), nil
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
