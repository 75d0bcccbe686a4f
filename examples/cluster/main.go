package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/asynkron/protoactor-go/cluster"

	"github.com/cuca-go/mcpconnector/examples/internal/demoserver"
	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/internal/fixture/gridmember"
	"github.com/cuca-go/mcpconnector/plugin"
)

//go:embed mcp.json
var bundled []byte

const server = "calculator"

func main() {
	demoserver.RunIfAsked()
	gridmember.RunIfAsked()
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "cluster example:", err)
		os.Exit(1)
	}
}

// members names the members by address, for the output.
type members map[string]string

func (m members) hosting(c *cluster.Cluster) string {
	pid := c.Get(server, grid.KindName)
	if pid == nil {
		return "nobody"
	}
	if name, ok := m[pid.Address]; ok {
		return name
	}
	return pid.Address
}

func run(ctx context.Context, out io.Writer) error {
	self, _ := demoserver.Self()
	if err := os.Setenv("MCP_DEMO_SELF", self); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "mcpconnector-cluster-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	config := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(config, bundled, 0o600); err != nil {
		return err
	}
	ports, err := gridmember.FreePorts(3)
	if err != nil {
		return err
	}
	spec := func(i int, name string) gridmember.Spec {
		return gridmember.Spec{Cluster: "mcpconnector-example", Port: ports[i], Ports: ports, Config: config, Name: name}
	}

	// Members B and C host the connections; A, here, runs the agent.
	names := members{}
	children := map[string]*gridmember.Process{}
	for i, name := range []string{"B", "C"} {
		p, err := gridmember.Spawn(self, spec(i+1, name))
		if err != nil {
			return err
		}
		defer func() { _ = p.Leave() }()
		children[name], names[p.Address] = p, name
	}
	a := spec(0, "A")
	a.Agent = true
	c, err := gridmember.Start(a)
	if err != nil {
		return err
	}
	defer c.Shutdown(true)
	names[c.ActorSystem.Address()] = "A"
	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := gridmember.WaitMembers(wait, c, 3); err != nil {
		return err
	}
	fmt.Fprintf(out, "Three members on loopback: A (the agent, this process), B and C (child processes).\n")

	calc, err := grid.Connect(ctx, c, server)
	if err != nil {
		return err
	}
	defer calc.Close()
	host := names.hosting(c)
	fmt.Fprintf(out, "The %q connection lives on member %s; its tools, seen from A:\n", server, host)
	for _, t := range calc.Tools() {
		fmt.Fprintf(out, "  %s: %s\n", t.Name, t.Description)
	}

	add := func(a, b int) error {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		res, err := calc.CallTool(ctx, "add", map[string]any{"a": a, "b": b}).Await(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  add(%d, %d) = %s, served by member %s\n", a, b, plugin.RenderResult(res), names.hosting(c))
		return nil
	}
	fmt.Fprintf(out, "\nThe agent on A calls add:\n")
	if err := add(21, 21); err != nil {
		return err
	}

	victim := children[host]
	if victim == nil {
		return errors.New("the connection is not on a child member")
	}
	fmt.Fprintf(out, "\nMember %s is killed (SIGKILL).\n", host)
	_ = victim.Kill()
	// A call sent in the instant before A hears of the death would be a
	// call in flight on a dead member: it would fail after the loss grace.
	// The example waits for A to notice, as a host watching Status would.
	for calc.Status().State == plugin.StateReady {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	fmt.Fprintf(out, "A notices at once (%s).\n", calc.Status().State)
	fmt.Fprintf(out, "The next call activates the grain on a live member, which connects anew:\n")
	if err := add(40, 2); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nDone; the members left leave the cluster gracefully.\n")
	return nil
}
