package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cuca-go/mcpconnector/internal/core/transportext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// These tests run real child processes, and end them with real signals.

// noLeaks fails t when a goroutine started during t outlives it.
func noLeaks(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// session connects a go-sdk client through s, as the connection actor does,
// and returns it with the connection under it.
func session(t *testing.T, s Stdio, logger *zap.Logger) (*mcp.ClientSession, *stdioConn, *stdioTransport) {
	t.Helper()
	tr, err := s.Open(logger)
	require.NoError(t, err)
	st := tr.(*stdioTransport)
	var conn *stdioConn
	client := mcp.NewClient(&mcp.Implementation{Name: "transport-test", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, connCapture{st, &conn}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	require.NoError(t, err)
	return cs, conn, st
}

// connCapture is the transport, keeping the connection it made.
type connCapture struct {
	t    *stdioTransport
	conn **stdioConn
}

func (c connCapture) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := c.t.Connect(ctx)
	if err == nil {
		*c.conn = conn.(*stdioConn)
	}
	return conn, err
}

func echo(t *testing.T, cs *mcp.ClientSession, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	assert.Equal(t, text, res.Content[0].(*mcp.TextContent).Text)
}

// procStat is what /proc says of pid: its state letter and process group,
// or ok false when there is no such process.
func procStat(pid int) (state byte, pgrp int, comm string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, "", false
	}
	open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[close+1:]))
	pgrp, _ = strconv.Atoi(f[2])
	return f[0][0], pgrp, string(b[open+1 : close]), true
}

// groupMembers lists the live processes of group pgid, by name.
func groupMembers(t *testing.T, pgid int) map[int]string {
	t.Helper()
	dir, err := os.ReadDir("/proc")
	require.NoError(t, err)
	out := map[int]string{}
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, pgrp, comm, ok := procStat(pid); ok && pgrp == pgid && state != 'Z' {
			out[pid] = comm
		}
	}
	return out
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	state, _, _, ok := procStat(pid)
	return ok && state != 'Z' && state != 'X'
}

func requireProc(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to see processes: ", err)
	}
}

func TestCloseEndsTheServersWholeProcessTree(t *testing.T) {
	requireProc(t)
	exe, err := os.Executable()
	require.NoError(t, err)
	shell := NewStdio("sh", "-c", `sleep 321 & exec "$0" `+childArg+` mcp`, exe)
	shell.Env = []string{"GORACE=atexit_sleep_ms=0"}
	for _, c := range []struct {
		name    string
		s       Stdio
		members int    // processes in the group besides the server
		exitErr string // what Close reports of the server's exit; "" for none
	}{
		{`sh -c "sleep 321 & exec server"`, shell, 1, ""},
		{"a server that forks a helper", child(t, "fork"), 1, ""},
		{"a server that forks a helper ignoring SIGTERM", child(t, "fork", "stubborn"), 1, ""},
		{"a server ignoring the end of stdin and SIGTERM", child(t, "stubborn"), 0, "signal: killed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			noLeaks(t)
			c.s.TerminateTimeout = 300 * time.Millisecond
			cs, conn, _ := session(t, c.s, zap.NewNop())
			echo(t, cs, "hello")
			leader := conn.cmd.Process.Pid
			var members map[int]string
			require.Eventually(t, func() bool {
				members = groupMembers(t, leader)
				return len(members) == 1+c.members
			}, 10*time.Second, 10*time.Millisecond, "the server and what it started share its group: %v", members)
			assert.Contains(t, members, leader, "the server leads its own group")

			err := cs.Close()
			if c.exitErr == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, c.exitErr)
			}
			for pid, name := range members {
				assert.False(t, alive(pid), "%s (%d) outlived Close", name, pid)
			}
			_, _, _, exists := procStat(leader)
			assert.False(t, exists, "the server is reaped: no zombie")
		})
	}
}

func TestAServerThatExitsLeavesItsStderrInTheTail(t *testing.T) {
	noLeaks(t)
	tr, err := child(t, "die").Open(zap.NewNop())
	require.NoError(t, err)
	conn, err := tr.Connect(context.Background())
	require.NoError(t, err)
	_, err = conn.Read(context.Background())
	assert.ErrorIs(t, err, io.EOF, "the server said nothing on stdout")
	err = conn.Close()
	require.ErrorContains(t, err, "exit status 3")
	assert.Equal(t, []string{"fatal: no config file"}, tr.(transportext.StderrTail).StderrTail(), "read to the end before Close returns")
	assert.Equal(t, err, conn.Close(), "a second Close reports the same")
}

func TestCloseIsIdempotentAndConcurrent(t *testing.T) {
	noLeaks(t)
	cs, conn, _ := session(t, child(t, "mcp"), zap.NewNop())
	echo(t, cs, "x")
	errs := make(chan error, 3)
	for range 3 {
		go func() { errs <- conn.Close() }()
	}
	for range 3 {
		assert.NoError(t, <-errs)
	}
	assert.NoError(t, cs.Close())
	err := conn.Write(context.Background(), &jsonrpc.Request{Method: "ping"})
	assert.ErrorIs(t, err, os.ErrClosed, "nothing is written after Close")
}

func TestStrayOutputLeavesTheSessionWorking(t *testing.T) {
	noLeaks(t)
	core, logs := observer.New(zap.DebugLevel)
	start := time.Now()
	cs, conn, _ := session(t, child(t, "noisy"), zap.New(core))
	for i := range 20 {
		echo(t, cs, fmt.Sprint("call ", i))
	}
	require.NoError(t, cs.Close())
	took := time.Since(start)
	conn.strays.mu.Lock()
	total := conn.strays.total
	conn.strays.mu.Unlock()
	assert.GreaterOrEqual(t, total, 2*21, "two stray lines before the answers to discover and to 20 calls")
	var warned int64
	for _, e := range logs.FilterLevelExact(zapcore.WarnLevel).All() {
		for _, v := range e.ContextMap() {
			if s, ok := v.(string); ok {
				assert.NotContains(t, s, "starting", "stray bytes stay at debug level")
			}
		}
		warned += e.ContextMap()["skipped"].(int64)
		assert.Equal(t, "stdio "+strconv.Quote(conn.cmd.Path), e.ContextMap()["mcp_server"])
	}
	assert.EqualValues(t, total, warned, "every stray line is counted in a warning, the last ones at Close")
	assert.LessOrEqual(t, logs.FilterLevelExact(zapcore.WarnLevel).Len(), 2+int(took/time.Second),
		"at most one warning a second, and one at Close")
}

func TestSpawnFailureIsASpawnError(t *testing.T) {
	noLeaks(t)
	s := child(t, "mcp")
	s.Dir = "/nonexistent-dir-for-mcpconnector"
	tr, err := s.Open(nil)
	require.NoError(t, err)
	_, err = tr.Connect(context.Background())
	var spawn *SpawnError
	require.ErrorAs(t, err, &spawn)
	assert.True(t, errors.Is(err, os.ErrNotExist), err.Error())
}
