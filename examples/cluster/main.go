package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/asynkron/protoactor-go/cluster"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/examples/demoserver"
	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/plugin"
)

//go:embed mcp.json
var bundled []byte

const server = "calculator"

func main() {
	demoserver.RunIfAsked()
	runMemberIfAsked()
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
	// Three members on loopback, each at two ports: A, here, runs the
	// agent; B and C, child processes, host the connections.
	ports, err := loopbackPorts(6)
	if err != nil {
		return err
	}
	at := map[string]endpoint{}
	var peers []string
	names := members{}
	for i, name := range []string{"A", "B", "C"} {
		e := endpoint{remote: ports[2*i], provider: ports[2*i+1]}
		at[name], names[e.address()] = e, name
		peers = append(peers, e.peer())
	}
	children := map[string]*child{}
	defer func() {
		for _, ch := range children {
			ch.leave()
		}
	}()
	for _, name := range []string{"B", "C"} {
		ch, err := spawn(name, at[name], peers)
		if err != nil {
			return err
		}
		children[name] = ch
	}
	// A registers no kind: no connection is activated here.
	c := startMember(at["A"], peers)
	// The members leave at once, each in its own time: the children are
	// let go first, and A leaves while they do.
	defer c.Shutdown(true)
	defer func() {
		for _, ch := range children {
			ch.letGo()
		}
	}()
	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := waitMembers(wait, c, 3, children); err != nil {
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
	victim.kill()
	// A call sent in the instant before A hears of the death would be a
	// call in flight on a dead member: it would fail after the loss grace.
	// The example waits for A to notice, as a host watching Status would.
	for calc.Status().State == actors.Ready {
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
