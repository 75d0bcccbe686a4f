package benchmarks

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// Scenarios of outages: a real server goes away for a while and comes back,
// and the row is the time from its return to the first call that succeeds,
// while a caller keeps calling every [OutagePoll] (as an agent's turns do).
const (
	// ScenarioOutageHTTP: dbhub (the npm package interop/package.json pins,
	// on SQLite) over Streamable HTTP, killed (SIGKILL) and started again
	// on the same port.
	ScenarioOutageHTTP = "outage, dbhub over HTTP: time to the first good call after the return"
	// ScenarioOutageStdio: the stdio test server, killed; its command then
	// fails (exits 1) until the outage ends, and works again after.
	ScenarioOutageStdio = "outage, stdio command failing: time to the first good call after the return"

	// OutagePoll is how often the caller calls during an outage; the
	// figures are that precise.
	OutagePoll = 50 * time.Millisecond
	// outageGiveUp bounds the wait for the first good call after the
	// return; a row that reaches it says so.
	outageGiveUp = 3 * time.Minute
)

// OutageSubject is the subject of an outage row: its length, in seconds.
func OutageSubject(d time.Duration) string {
	return fmt.Sprintf("outage of %d s", int(d.Round(time.Second).Seconds()))
}

// Outage is what one outage measured; its row's latency is AfterReturn.
type Outage struct {
	// AfterReturn is the time from the server's return to the first good
	// call; AfterKill from the kill to the same call.
	AfterReturn, AfterKill time.Duration
	// Restarts counts the plugin's restarts meanwhile.
	Restarts int
	// GaveUp is true when no call succeeded within 3 minutes of the
	// return (AfterReturn is then that limit).
	GaveUp bool
}

func (r *runner) addOutage(scenario string, d time.Duration, run Outage) {
	subject := OutageSubject(d)
	fig := run.AfterReturn
	r.rows = append(r.rows, Row{Scenario: scenario, Outage: &run, Result: Result{Subject: subject,
		Latency: Stats{N: 1, P50: fig, P90: fig, P99: fig, Mean: fig, Max: fig}}})
	r.progress("%s, %s: first good call %s after the return, %s after the kill, %d restarts",
		scenario, subject, Dur(run.AfterReturn), Dur(run.AfterKill), run.Restarts)
}

// caller calls call every OutagePoll from its start until stopped, and
// reports each success's time.
type caller struct {
	good   chan time.Time
	cancel context.CancelFunc
	done   chan struct{}
}

func startCaller(ctx context.Context, p *plugin.McpPlugin, c Call) *caller {
	ctx, cancel := context.WithCancel(ctx)
	cl := &caller{good: make(chan time.Time, 1024), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(cl.done)
		tick := time.NewTicker(OutagePoll)
		defer tick.Stop()
		for {
			callCtx, stop := context.WithTimeout(ctx, 5*time.Second)
			res, err := p.CallTool(callCtx, c.Tool, c.Args).Await(callCtx)
			stop()
			if err == nil && !res.IsError && (c.Want == "" || plugin.RenderResult(res) == c.Want) {
				select {
				case cl.good <- time.Now():
				default:
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return cl
}

func (cl *caller) stop() { cl.cancel(); <-cl.done }

// firstGoodAfter waits for the caller's first success at or after t.
func (cl *caller) firstGoodAfter(ctx context.Context, t time.Time) (time.Time, bool) {
	limit := time.NewTimer(outageGiveUp)
	defer limit.Stop()
	for {
		select {
		case at := <-cl.good:
			if !at.Before(t) {
				return at, true
			}
		case <-limit.C:
			return time.Time{}, false
		case <-ctx.Done():
			return time.Time{}, false
		}
	}
}

// drain forgets the successes so far.
func (cl *caller) drain() {
	for {
		select {
		case <-cl.good:
		default:
			return
		}
	}
}

// outageHTTP measures each outage of r.cfg.Outages on dbhub over HTTP.
func (r *runner) outageHTTP(ctx context.Context) error {
	node, dbhub, err := pinnedDBHub()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "mcpconnector-bench-dbhub-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	port, err := freePort()
	if err != nil {
		return err
	}
	srv := &dbhubServer{Node: node, Script: dbhub, Port: port, DSN: "sqlite://" + filepath.Join(dir, "bench.db")}
	for _, d := range r.cfg.Outages {
		if err := srv.Start(ctx); err != nil {
			return err
		}
		p, err := plugin.Connect(ctx, transport.StreamableHTTP{URL: srv.URL()})
		if err != nil {
			srv.Kill()
			return fmt.Errorf("dbhub: %w", err)
		}
		run, err := measureOutage(ctx, p, dbhubCall, d, func() error { srv.Kill(); return nil }, func() (time.Time, error) {
			err := srv.Start(ctx)
			return time.Now(), err
		})
		_ = p.Close()
		srv.Kill()
		if err != nil {
			return err
		}
		r.addOutage(ScenarioOutageHTTP, d, run)
	}
	return nil
}

// measureOutage calls c on p until it succeeds, then kills the server
// (kill), waits d, brings it back (back, which returns when it is back) and
// measures the time to the first good call after that.
func measureOutage(ctx context.Context, p *plugin.McpPlugin, c Call, d time.Duration, kill func() error, back func() (time.Time, error)) (Outage, error) {
	cl := startCaller(ctx, p, c)
	defer cl.stop()
	if _, ok := cl.firstGoodAfter(ctx, time.Time{}); !ok {
		return Outage{}, fmt.Errorf("no good call before the outage: %v", p.Status().LastError)
	}
	restarts0 := p.Status().Restarts
	if err := kill(); err != nil {
		return Outage{}, err
	}
	killed := time.Now()
	select {
	case <-time.After(d):
	case <-ctx.Done():
		return Outage{}, ctx.Err()
	}
	cl.drain() // a call under way at the kill may have been answered
	returned, err := back()
	if err != nil {
		return Outage{}, err
	}
	good, ok := cl.firstGoodAfter(ctx, returned)
	run := Outage{Restarts: p.Status().Restarts - restarts0, GaveUp: !ok}
	if !ok {
		good = returned.Add(outageGiveUp)
	}
	run.AfterReturn, run.AfterKill = good.Sub(returned), good.Sub(killed)
	return run, nil
}

// outageStdio measures each outage of r.cfg.Outages on the stdio test
// server behind a command that fails while a flag file is missing.
func (r *runner) outageStdio(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "mcpconnector-bench-outage-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for _, d := range r.cfg.Outages {
		fc, err := newFailingCommand(dir, r.stdio)
		if err != nil {
			return err
		}
		if err := fc.Works(true); err != nil {
			return err
		}
		p, err := plugin.Connect(ctx, fc.Transport)
		if err != nil {
			return err
		}
		run, err := measureOutage(ctx, p, InstantCall, d, func() error {
			if err := fc.Works(false); err != nil {
				return err
			}
			return fc.KillServer()
		}, func() (time.Time, error) {
			err := fc.Works(true)
			return time.Now(), err
		})
		_ = p.Close()
		if err != nil {
			return err
		}
		r.addOutage(ScenarioOutageStdio, d, run)
	}
	return nil
}

// failingCommand wraps a stdio server's command in a shell script that
// exits 1, saying so on stderr, while its flag file is missing, and
// otherwise writes its pid to a file and becomes the server: a command
// that fails for a while and then works.
type failingCommand struct {
	// Transport runs the script.
	Transport     transport.Stdio
	flag, pidFile string
}

// failingScript is the wrapper: sh failing.sh FLAG PIDFILE COMMAND ARGS...
const failingScript = `flag=$1 pidfile=$2; shift 2
if [ ! -e "$flag" ]; then echo "the server is not there yet ($flag is missing)" >&2; exit 1; fi
echo $$ > "$pidfile"
exec "$@"
`

// newFailingCommand writes the wrapper of server into dir.
func newFailingCommand(dir string, server transport.Stdio) (*failingCommand, error) {
	sub, err := os.MkdirTemp(dir, "failing-")
	if err != nil {
		return nil, err
	}
	script := filepath.Join(sub, "failing.sh")
	if err := os.WriteFile(script, []byte(failingScript), 0o644); err != nil {
		return nil, err
	}
	fc := &failingCommand{flag: filepath.Join(sub, "works"), pidFile: filepath.Join(sub, "pid")}
	t := server
	t.Command = "/bin/sh"
	t.Args = append([]string{script, fc.flag, fc.pidFile, server.Command}, server.Args...)
	fc.Transport = t
	return fc, nil
}

// Works makes the command work (or fail) from its next start on.
func (fc *failingCommand) Works(ok bool) error {
	if !ok {
		if err := os.Remove(fc.flag); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	return os.WriteFile(fc.flag, nil, 0o644)
}

// KillServer kills (SIGKILL) the server the command last became.
func (fc *failingCommand) KillServer() error {
	b, err := os.ReadFile(fc.pidFile)
	if err != nil {
		return err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("pid file %s: %w", fc.pidFile, err)
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill() // SIGKILL on Unix, TerminateProcess on Windows
}

// dbhubCall is dbhub's execute_sql of "SELECT 1"; its answer is JSON,
// so any success is good.
var dbhubCall = Call{Tool: "execute_sql", Args: json.RawMessage(`{"sql":"SELECT 1 AS one"}`)}

// dbhubServer runs dbhub over Streamable HTTP on a loopback port.
type dbhubServer struct {
	// Node is the pinned node, Script dbhub's dist/index.js, DSN its
	// database ("sqlite:///path").
	Node, Script, DSN string
	// Port is the port it listens on, again after each Start.
	Port int

	cmd  *exec.Cmd
	done chan struct{}
}

// URL is its MCP endpoint.
func (d *dbhubServer) URL() string { return fmt.Sprintf("http://127.0.0.1:%d/mcp", d.Port) }

// Start runs it and returns once it listens.
func (d *dbhubServer) Start(ctx context.Context) error {
	cmd := exec.Command(d.Node, d.Script, "--transport", "http", "--host", "127.0.0.1", "--port", strconv.Itoa(d.Port), "--dsn", d.DSN)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("dbhub: %w", err)
	}
	listening := make(chan struct{})
	var tail []string
	d.cmd, d.done = cmd, make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			if !said {
				tail = append(tail, sc.Text())
				if strings.HasPrefix(sc.Text(), "HTTP server listening on ") {
					said = true
					close(listening)
				}
			}
		}
		_ = cmd.Wait()
		close(d.done)
	}()
	select {
	case <-listening:
		return nil
	case <-d.done:
		return fmt.Errorf("dbhub exited before listening: %s", strings.Join(tail, "\n"))
	case <-time.After(60 * time.Second):
	case <-ctx.Done():
	}
	d.Kill()
	return fmt.Errorf("dbhub did not listen on port %d within 60s", d.Port)
}

// Kill kills it (SIGKILL) and reaps it.
func (d *dbhubServer) Kill() {
	if d.cmd == nil {
		return
	}
	_ = d.cmd.Process.Kill()
	<-d.done
	d.cmd = nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// pinnedDBHub finds the pinned node and dbhub in interop/.cache, running
// interop/setup.sh (npm) when they are missing.
func pinnedDBHub() (node, dbhub string, err error) {
	root, err := RepoRoot()
	if err != nil {
		return "", "", err
	}
	var stderr strings.Builder
	cmd := exec.Command("bash", filepath.Join(root, "interop", "setup.sh"))
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("interop/setup.sh (it installs dbhub and Node.js with npm): %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	node = strings.TrimSpace(string(out))
	dbhub = filepath.Join(root, "interop", ".cache", "node_modules", "@bytebase", "dbhub", "dist", "index.js")
	if _, err := os.Stat(dbhub); err != nil {
		return "", "", fmt.Errorf("dbhub: %w", err)
	}
	return node, dbhub, nil
}

// RepoRoot is the repository's root at or above the working directory: the
// directory of the main module's go.mod (github.com/cuca-go/mcpconnector),
// which this module, nested in it, is not.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && modulePath(data) == "github.com/cuca-go/mcpconnector" {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod of github.com/cuca-go/mcpconnector at or above the working directory")
		}
		dir = parent
	}
}

// modulePath is the path on the module line of a go.mod's content.
func modulePath(gomod []byte) string {
	for line := range strings.Lines(string(gomod)) {
		if fields := strings.Fields(line); len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], "\"`")
		}
	}
	return ""
}

// outageTargets are the goals of outages: the first good call
// within 3 s of the return after 10 s away, within 10 s after 60 s.
func (r *Report) outageTargets() []Target {
	var out []Target
	for _, scenario := range []string{ScenarioOutageHTTP, ScenarioOutageStdio} {
		for _, g := range []struct{ d, within time.Duration }{{10 * time.Second, 3 * time.Second}, {60 * time.Second, 10 * time.Second}} {
			row := r.find(scenario, OutageSubject(g.d), 0)
			if row == nil || row.Outage == nil {
				continue
			}
			o := row.Outage
			got := fmt.Sprintf("%s after the return (%s after the kill, %d restarts)", Dur(o.AfterReturn), Dur(o.AfterKill), o.Restarts)
			if o.GaveUp {
				got = fmt.Sprintf("no good call within %s of the return (%d restarts)", outageGiveUp, o.Restarts)
			}
			what, _, _ := strings.Cut(scenario, ":")
			out = append(out, Target{
				Goal: fmt.Sprintf("%s, %s: the first good call within %d s of the server's return", what, OutageSubject(g.d), int(g.within.Seconds())),
				Got:  got,
				Met:  !o.GaveUp && o.AfterReturn <= g.within,
			})
		}
	}
	return out
}

// outageNote is an outage row's last column.
func outageNote(row *Row) string {
	if row.Outage == nil {
		return ""
	}
	if row.Outage.GaveUp {
		return fmt.Sprintf("no good call within %s of the return", outageGiveUp)
	}
	return fmt.Sprintf("%s after the kill; %d restarts", Dur(row.Outage.AfterKill), row.Outage.Restarts)
}
