package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
)

func TestDirectCallAnswersAsCallTool(t *testing.T) {
	noLeaks(t)
	cs, _, st := session(t, child(t, "mcp"), zap.NewNop())
	defer cs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	want, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "héllo <&>"}})
	require.NoError(t, err)
	var ids []jsonrpc.ID
	got, err := directcall.CallerOf(st).CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(` { "text" : "héllo <&>" } `)},
		func(id jsonrpc.ID) { ids = append(ids, id) })
	require.NoError(t, err)
	assert.True(t, reflect.DeepEqual(want, got), "got %#v, want %#v", got, want)
	require.Len(t, ids, 1)
	assert.Less(t, ids[0].Raw().(int64), int64(0), "a direct call's id never meets go-sdk's")

	_, err = directcall.CallerOf(st).CallTool(ctx, &mcp.CallToolParams{Name: "nope", Meta: mcp.Meta{"progressToken": "7"}}, nil)
	_, wantErr := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope"})
	var rpc, wantRPC *jsonrpc.Error
	require.ErrorAs(t, wantErr, &wantRPC)
	require.ErrorAs(t, err, &rpc)
	assert.Equal(t, wantRPC.Code, rpc.Code)
	assert.Equal(t, wantErr.Error(), err.Error())
}

func TestDirectCallsBesideTheSessionsCalls(t *testing.T) {
	noLeaks(t)
	cs, _, st := session(t, child(t, "mcp"), zap.NewNop())
	defer cs.Close()
	mixCalls(t, cs, directcall.CallerOf(st), 20)
}

// mixCalls runs rounds echo calls from each of 8 goroutines, one in three
// through the session and the others through tc's direct path, and
// checks that each call gets its own answer.
func mixCalls(t *testing.T, cs *mcp.ClientSession, tc directcall.Caller, rounds int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range rounds {
				text := fmt.Sprintf("g%d-%d", g, i)
				var res *mcp.CallToolResult
				var err error
				if i%3 == 0 {
					res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
				} else {
					res, err = tc.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"` + text + `"}`)}, nil)
				}
				if err != nil {
					errs <- err
					return
				}
				if got := res.Content[0].(*mcp.TextContent).Text; got != text {
					errs <- fmt.Errorf("call %s answered %q", text, got)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestDirectCallCancelledTellsTheServer(t *testing.T) {
	noLeaks(t)
	cs, conn, st := session(t, child(t, "mcp"), zap.NewNop())
	defer cs.Close()
	ctx, cancel := context.WithCancel(context.Background())
	sent := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := directcall.CallerOf(st).CallTool(ctx, &mcp.CallToolParams{Name: "block"}, func(jsonrpc.ID) { close(sent) })
		done <- err
	}()
	<-sent
	// Cancel once the handler runs: go-sdk's server never hands a request
	// cancelled before its handler starts to the handler, which then says
	// nothing (the wait below ran on forever 1 run in 40 under -race).
	require.Eventually(t, func() bool { return contains(conn.tail.Lines(), "block: started") }, 20*time.Second, time.Millisecond)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	// The server says on stderr that its handler was cancelled; the session
	// still works.
	for !contains(conn.tail.Lines(), "block: cancelled") {
		echoCtx, stop := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := cs.CallTool(echoCtx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
		stop()
		require.NoError(t, err)
	}
}

func TestDirectCallFailsWhenTheConnectionEnds(t *testing.T) {
	noLeaks(t)
	cs, conn, st := session(t, child(t, "mcp"), zap.NewNop())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sent := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := directcall.CallerOf(st).CallTool(ctx, &mcp.CallToolParams{Name: "block"}, func(jsonrpc.ID) { close(sent) })
		done <- err
	}()
	<-sent
	// attempted runs just before the write: close once the server has the
	// call, or the close may come first and the call is rightly not sent
	// (ErrNotSent; 1 run in a full CI run).
	require.Eventually(t, func() bool { return contains(conn.tail.Lines(), "block: started") }, 20*time.Second, time.Millisecond)
	require.NoError(t, cs.Close())
	err := <-done
	assert.ErrorIs(t, err, mcp.ErrConnectionClosed)
	_, err = directcall.CallerOf(st).CallTool(ctx, &mcp.CallToolParams{Name: "echo"}, nil)
	assert.True(t, errors.Is(err, mcp.ErrConnectionClosed), "a call after the end: %v", err)
	_, wantErr := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo"})
	require.Error(t, wantErr)
	assert.Equal(t, wantErr.Error(), err.Error(), "go-sdk's words")
}

func contains(lines []string, s string) bool {
	for _, l := range lines {
		if l == s {
			return true
		}
	}
	return false
}

func TestDirectCallAnsweredOverTheSizeLimitFailsAlone(t *testing.T) {
	noLeaks(t)
	cs, _, st := session(t, child(t, "mcp"), zap.NewNop())
	defer cs.Close()
	// A safety net, not a timing: the child encodes 24 MiB of escapes, which
	// takes 14-21 s under -race on a loaded 2-core machine.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The server escapes each '<' it echoes as \u003c: a request within
	// its limit, an answer six times over ours.
	huge := strings.Repeat("<", MaxMessageBytes/4)
	_, err := directcall.CallerOf(st).CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"` + huge + `"}`)}, nil)
	var rpc *jsonrpc.Error
	require.ErrorAs(t, err, &rpc)
	assert.Equal(t, ErrMessageTooLarge.Error(), rpc.Message)
	res, err := directcall.CallerOf(st).CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"after"}`)}, nil)
	require.NoError(t, err)
	assert.Equal(t, "after", res.Content[0].(*mcp.TextContent).Text)
}

func TestDirectCallWithArgumentsNotJSONIsNotSentAndFails(t *testing.T) {
	noLeaks(t)
	cs, _, st := session(t, child(t, "mcp"), zap.NewNop())
	defer cs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := directcall.CallerOf(st).CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":`)}, nil)
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrNotSent, "a call that cannot be written is no lost connection")
	res, err := directcall.CallerOf(st).CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"fine"}`)}, nil)
	require.NoError(t, err)
	assert.Equal(t, "fine", res.Content[0].(*mcp.TextContent).Text)
}
