package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/automanaged"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/remote"

	"github.com/cuca-go/mcpconnector/examples/demoserver"
	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/mcpconfig"
)

// clusterName is the cluster every member joins.
const clusterName = "mcpconnector-example"

// refreshTTL is how often the automanaged members ask each other how they
// are; a member that stops answering leaves the topology about this long
// after.
const refreshTTL = 500 * time.Millisecond

// memberFlag as the first argument makes this binary a member that hosts
// the connections, in a child process ([runMemberIfAsked]).
const memberFlag = "--cluster-member"

// endpoint is where a member listens on 127.0.0.1: remote is its actor
// system's port (its address in the cluster, that of the grains it hosts),
// provider its automanaged provider's port, where the others ask after it.
type endpoint struct{ remote, provider int }

// address is the member's address in the cluster, as a PID carries it.
func (e endpoint) address() string { return "127.0.0.1:" + strconv.Itoa(e.remote) }

// peer is where the other members ask after this one.
func (e endpoint) peer() string { return "127.0.0.1:" + strconv.Itoa(e.provider) }

// startMember starts a member of the cluster in this process, at e, finding
// the others through the automanaged providers at peers (every member's,
// its own included). kinds are what it can host: grid.NewKind for a member
// that hosts the MCP connections, nothing for one that only calls them.
// Stop it with Shutdown(true), which leaves the cluster gracefully.
func startMember(e endpoint, peers []string, kinds ...*cluster.Kind) *cluster.Cluster {
	provider := automanaged.NewWithConfig(refreshTTL, e.provider, peers...)
	config := cluster.Configure(clusterName, provider, disthash.New(),
		remote.Configure("127.0.0.1", e.remote), cluster.WithKinds(kinds...))
	// protoactor's logs are the host's business (silenced here).
	system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.DiscardHandler)
	}))
	c := cluster.New(system, config)
	c.StartMember()
	return c
}

// loadConfig parses the bundled mcp.json, which every hosting member loads:
// its calculator is this executable, as [demoserver.RunIfAsked] serves it.
func loadConfig() (*mcpconfig.Config, error) {
	self, _ := demoserver.Self()
	if err := os.Setenv("MCP_DEMO_SELF", self); err != nil {
		return nil, err
	}
	return mcpconfig.Parse(bundled)
}

// runMemberIfAsked is a child's main when this binary was started with
// [memberFlag] (by [spawn]): a member that hosts the connections until its
// stdin closes (the parent lets it go, or dies) or it gets SIGTERM or
// SIGINT; then it leaves the cluster gracefully and exits. Otherwise it
// returns at once. Call it first in main (and in TestMain).
func runMemberIfAsked() {
	if len(os.Args) < 2 || os.Args[1] != memberFlag {
		return
	}
	if err := serveMember(os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "cluster member:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func serveMember(args []string) error {
	fs := flag.NewFlagSet(memberFlag, flag.ContinueOnError)
	var e endpoint
	fs.IntVar(&e.remote, "port", 0, "the actor system's port on 127.0.0.1")
	fs.IntVar(&e.provider, "provider-port", 0, "the automanaged provider's port")
	peers := fs.String("peers", "", "every member's provider, host:port, comma-separated")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	c := startMember(e, strings.Split(*peers, ","), grid.NewKind(cfg))
	defer c.Shutdown(true)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop()
	}()
	<-ctx.Done()
	return nil
}

// child is a member in a child process.
type child struct {
	name   string
	cmd    *exec.Cmd
	stdin  io.Closer
	exited chan struct{} // closed once the process has exited
}

// spawn starts this binary as a hosting member at e in a child process.
// It does not wait for the member to join: [waitMembers] does.
func spawn(name string, e endpoint, peers []string) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, memberFlag, "-port", strconv.Itoa(e.remote),
		"-provider-port", strconv.Itoa(e.provider), "-peers", strings.Join(peers, ","))
	// Its stdout is discarded: protoactor's HTTP server announces itself there.
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ch := &child{name: name, cmd: cmd, stdin: stdin, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(ch.exited)
	}()
	return ch, nil
}

// kill ends the member with SIGKILL, as a crash would.
func (ch *child) kill() {
	_ = ch.cmd.Process.Kill()
	<-ch.exited
}

// letGo closes the member's stdin, so that it leaves the cluster
// gracefully.
func (ch *child) letGo() { _ = ch.stdin.Close() }

// leave lets the member go and waits for it to exit; one still there after
// 20 seconds is killed.
func (ch *child) leave() {
	ch.letGo()
	select {
	case <-ch.exited:
	case <-time.After(20 * time.Second):
		ch.kill()
	}
}

// waitMembers waits until c sees n members. A child that exits meanwhile
// never will join: that is an error at once.
func waitMembers(ctx context.Context, c *cluster.Cluster, n int, children map[string]*child) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for c.MemberList.Members().Len() < n {
		for _, ch := range children {
			select {
			case <-ch.exited:
				return fmt.Errorf("member %s exited (%s) before joining", ch.name, ch.cmd.ProcessState)
			default:
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d of %d members joined: %w", c.MemberList.Members().Len(), n, ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}

// loopbackPorts returns n distinct ports that were free on every address a
// moment ago. They are drawn from 20000-32767, below the ranges kernels
// give to listens on port 0 (Linux's default starts at 32768, others' at
// 49152): a port such a listen handed out and that was closed again may be
// handed to the next one, in any process, before the member meant to take
// it starts.
func loopbackPorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		if tries == 100*n {
			return nil, fmt.Errorf("no %d free ports in 20000-32767", n)
		}
		port := 20000 + rand.IntN(12768)
		ln, err := net.Listen("tcp", ":"+strconv.Itoa(port))
		if err != nil || slices.Contains(ports, port) {
			continue
		}
		defer ln.Close()
		ports = append(ports, port)
	}
	return ports, nil
}
