package transport

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/logfield"
)

// The defaults of [Stdio]'s fields.
const (
	// defaultTerminateTimeout is [Stdio.TerminateTimeout]'s default.
	defaultTerminateTimeout = 2 * time.Second
	// defaultStderrLines is [Stdio.StderrLines]'s default.
	defaultStderrLines = 20
)

// Stdio spawns Command as a child process and speaks MCP over its stdin and
// stdout. The zero values of Args, Env and Dir mean: no arguments, only
// [DefaultEnv], and this process's working directory.
type Stdio struct {
	// Command is the executable, found on PATH when it has no slash.
	Command string
	// Args are passed to the command as they are; no shell sees them.
	Args []string
	// Env holds extra "KEY=value" entries, added to [DefaultEnv]; an entry
	// here wins over a default of the same key.
	Env []string
	// Dir is the child's working directory; empty means this process's.
	Dir string
	// TerminateTimeout is how long closing waits after closing stdin, and
	// again after SIGTERM, before escalating; and how long what the server
	// started may outlive it before SIGKILL. Zero or negative means
	// 2s.
	TerminateTimeout time.Duration
	// StderrLines is how many of the child's last stderr lines are kept,
	// beside the first line that reads as an error (one holding "error",
	// "fatal", "exception", "panic", "required" or "not found"). That
	// line and the last 3 (at most 512 bytes in all, control sequences
	// removed) go into errors; the whole tail goes to the logger at debug
	// level when a connection fails. Zero means 20;
	// negative keeps none.
	StderrLines int
	// Label names the server in logs, e.g. the key of its mcp.json entry;
	// empty means String(). The stderr lines of the child are logged with
	// it as "mcp_server".
	Label string
	// DisableDirectCalls sends tools/call and resources/read through
	// go-sdk's ClientSession instead of on the connection's own path
	// beneath the session (see the package doc), which is the default: the
	// same requests and results at a fraction of the bytes and CPU. The
	// environment variable MCPCONNECTOR_DIRECT_CALLS=0 turns the direct
	// path off for every server.
	DisableDirectCalls bool
}

// label names the server in logs: Label, or String() when Label is
// empty.
func (s Stdio) label() string {
	if s.Label != "" {
		return s.Label
	}
	return s.String()
}

// NewStdio returns a Stdio transport for command with args.
func NewStdio(command string, args ...string) Stdio {
	return Stdio{Command: command, Args: args}
}

// defaultEnvKeys are the variables a stdio child inherits from this process
// when they are set; nothing else of this process's environment reaches it.
var defaultEnvKeys = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR"}

// DefaultEnv returns the minimal environment every stdio child starts from:
// those of HOME, LOGNAME, PATH, SHELL, TERM, USER, LANG and TMPDIR that are
// set in this process, and nothing else of its environment. [Stdio.Env]
// adds to it, per server.
func DefaultEnv() []string {
	env := make([]string, 0, len(defaultEnvKeys))
	for _, k := range defaultEnvKeys {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func (s Stdio) String() string { return fmt.Sprintf("stdio %q", s.Command) }

// Open checks the command and returns a transport that spawns it on connect.
// A command that cannot be found or is not executable fails here, with a
// [*SpawnError].
func (s Stdio) Open(logger *zap.Logger) (mcp.Transport, error) {
	if strings.TrimSpace(s.Command) == "" {
		return nil, &SpawnError{Command: s.Command, Err: fmt.Errorf("empty command")}
	}
	path, err := exec.LookPath(s.Command)
	if err != nil {
		return nil, &SpawnError{Command: s.Command, Err: err}
	}
	if logger == nil {
		logger = zap.NewNop()
	}
	lines := s.StderrLines
	if lines == 0 {
		lines = defaultStderrLines
	}
	td := s.TerminateTimeout
	if td <= 0 {
		td = defaultTerminateTimeout
	}
	logger = logfield.Server(logger, s.label())
	return &stdioTransport{
		direct: !s.DisableDirectCalls && directCallsAllowed(),
		cfg:    s,
		path:   path,
		td:     td,
		logger: logger,
		stderr: newStderrTail(lines, logger),
	}, nil
}

// stdioTransport is one spawn of a [Stdio] server.
type stdioTransport struct {
	direct bool // tools/call takes the direct path
	cfg    Stdio
	path   string
	td     time.Duration
	logger *zap.Logger
	stderr *stderrTail
	conn   atomic.Pointer[stdioConn] // once connected
}

// Connect starts the child in a process group of its own and returns our
// connection to it (see stdioConn), not go-sdk's: go-sdk's ends the session
// at the first line it cannot decode and signals only the child on close.
func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	conn, err := startStdio(t.path, t.cfg, t.td, t.stderr, t.logger)
	if err != nil {
		return nil, &SpawnError{Command: t.cfg.Command, Err: err}
	}
	t.conn.Store(conn)
	return conn, nil
}

// ChildExit says how the child exited, waiting up to wait for it.
func (t *stdioTransport) ChildExit(wait time.Duration) string {
	c := t.conn.Load()
	if c == nil {
		return ""
	}
	return c.exitStatus(wait)
}

// Abort kills the child's process group at once, if it was started: for
// an attempt that ran out of time, whose server has nothing to save. Close
// still reaps it.
func (t *stdioTransport) Abort() {
	if c := t.conn.Load(); c != nil {
		_ = signalGroup(c.cmd, syscall.SIGKILL)
	}
}

// StderrTail returns the child's last stderr lines, oldest first, after
// the first line that reads as an error when it is no longer among them.
func (t *stdioTransport) StderrTail() []string { return t.stderr.Lines() }
