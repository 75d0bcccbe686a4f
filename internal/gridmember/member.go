package gridmember

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/automanaged"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/remote"

	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// Arg is the first argument that makes a re-executed binary a member
// ([RunIfAsked]).
const Arg = "mcpconnector-grid-member"

// RefreshTTL is how often automanaged members poll each other; a member
// that stops answering leaves the topology about this long after.
const RefreshTTL = 500 * time.Millisecond

// Spec describes one member of a loopback cluster.
type Spec struct {
	// Cluster is the cluster's name.
	Cluster string
	// Port is this member's automanaged HTTP port; Ports are every
	// member's, this one's included.
	Port  int
	Ports []int
	// Config is the path of the mcp.json every member loads.
	Config string
	// Name labels the member in output.
	Name string
	// Agent makes a member that calls grains but hosts none (it registers
	// no kind): where an agent runs, apart from the servers.
	Agent bool
}

func (s Spec) args() []string {
	ports := make([]string, len(s.Ports))
	for i, p := range s.Ports {
		ports[i] = strconv.Itoa(p)
	}
	return []string{Arg, s.Cluster, strconv.Itoa(s.Port), strings.Join(ports, ","), s.Config, s.Name}
}

func parse(args []string) (Spec, error) {
	if len(args) != 6 {
		return Spec{}, fmt.Errorf("gridmember: want 6 arguments, got %d", len(args))
	}
	s := Spec{Cluster: args[1], Config: args[4], Name: args[5]}
	var err error
	if s.Port, err = strconv.Atoi(args[2]); err != nil {
		return s, err
	}
	for _, p := range strings.Split(args[3], ",") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return s, err
		}
		s.Ports = append(s.Ports, n)
	}
	return s, nil
}

// FreePorts returns n loopback TCP ports that were free a moment ago.
func FreePorts(n int) ([]int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			_ = ln.Close()
		}
	}()
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Start starts the member of s in this process and returns its cluster.
// opts govern the connections it hosts. Stop it with Shutdown(true).
func Start(s Spec, opts ...plugin.Option) (*cluster.Cluster, error) {
	cfg, err := toolbox.LoadConfig(s.Config)
	if err != nil {
		return nil, err
	}
	hosts := make([]string, len(s.Ports))
	for i, p := range s.Ports {
		hosts[i] = "127.0.0.1:" + strconv.Itoa(p)
	}
	provider := automanaged.NewWithConfig(RefreshTTL, s.Port, hosts...)
	var kinds []*cluster.Kind
	if !s.Agent {
		kinds = append(kinds, grid.NewKind(cfg, opts...))
	}
	config := cluster.Configure(s.Cluster, provider, disthash.New(), remote.Configure("127.0.0.1", 0),
		cluster.WithKinds(kinds...))
	system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.DiscardHandler)
	}))
	c := cluster.New(system, config)
	c.StartMember()
	return c, nil
}

// WaitMembers waits until c sees n members.
func WaitMembers(ctx context.Context, c *cluster.Cluster, n int) error {
	for c.MemberList.Members().Len() != n {
		select {
		case <-ctx.Done():
			return fmt.Errorf("gridmember: %d of %d members: %w", c.MemberList.Members().Len(), n, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// RunIfAsked runs a member and exits when this process was started by
// [Spawn]; otherwise it returns at once. The member prints "member NAME
// ADDRESS" when it is up, and leaves the cluster gracefully when its stdin
// closes.
func RunIfAsked() {
	if len(os.Args) < 2 || os.Args[1] != Arg {
		return
	}
	s, err := parse(os.Args[1:])
	if err == nil {
		err = serve(s, os.Stdin, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "grid member:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func serve(s Spec, in io.Reader, out io.Writer) error {
	c, err := Start(s)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "member %s %s\n", s.Name, c.ActorSystem.Address())
	_, _ = io.Copy(io.Discard, in) // until the parent closes stdin
	c.Shutdown(true)
	return nil
}

// Process is a member running in a child process.
type Process struct {
	Name    string
	Address string // its actor system's address, host:port
	cmd     *exec.Cmd
	stdin   io.WriteCloser
}

// Spawn starts the member of s in a child process running executable (a
// binary whose main, or TestMain, calls [RunIfAsked] first) and waits for
// it to come up.
func Spawn(executable string, s Spec, env ...string) (*Process, error) {
	cmd := exec.Command(executable, s.args()...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{Name: s.Name, cmd: cmd, stdin: stdin}
	// The automanaged provider's HTTP server announces itself on stdout
	// too; the member's own line is the one that counts.
	r := bufio.NewReader(stdout)
	var line string
	var f []string
	for err == nil && (len(f) != 3 || f[0] != "member") {
		line, err = r.ReadString('\n')
		f = strings.Fields(line)
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("gridmember: %s did not come up (%q): %v", s.Name, line, err)
	}
	p.Address = f[2]
	return p, nil
}

// Kill ends the member with SIGKILL, as a crash would, and reaps it.
func (p *Process) Kill() error {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	return nil
}

// Leave closes the member's stdin, so that it leaves the cluster
// gracefully, and waits for it to exit.
func (p *Process) Leave() error {
	_ = p.stdin.Close()
	return p.cmd.Wait()
}

// Pid is the member process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }
