//go:build !race

// protoactor-go's remote.Start writes grpc's global logger, which the race
// detector reports when two remotes share a process: this file builds
// without -race.

package attach_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/cuca-go/mcpconnector/internal/core/attach"
	"github.com/cuca-go/mcpconnector/internal/core/wire"
	"github.com/cuca-go/mcpconnector/internal/fixture/testremote"
	"github.com/cuca-go/mcpconnector/messages"
)

// wireOwner records what a link hands its facade, progress included.
type wireOwner struct {
	*owner
	progress chan *messages.CallProgress
}

func (o *wireOwner) Progress(m *messages.CallProgress) { o.progress <- m }

// A link to an actor on another member speaks to it in wire forms only,
// and hands its facade plain messages only: the tool list, the progress
// and the reply of a call; a cancel and the end of watching leave as wire
// forms too.
func TestLinkAcrossRemote(t *testing.T) {
	host, facade := testremote.Pair(t)
	// The peer answers in wire forms, as an actor of this module there
	// does, and reports what it received.
	received := make(chan proto.Message, 16)
	pid := host.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch c.Message().(type) {
		case actor.SystemMessage, actor.AutoReceiveMessage:
			return
		}
		m, ok := c.Message().(proto.Message)
		if !ok {
			return
		}
		received <- m
		switch w := m.(type) {
		case *wire.WireAwaitReady:
			c.Respond(&wire.WireReady{ToolsJson: []byte(`[{"name":"add","inputSchema":{"type":"object"}}]`),
				ProtocolVersion: "2026-07-28"})
		case *wire.WireCallTool:
			c.Respond(&wire.WireCallProgress{Id: w.Id, Progress: 1, Total: 2, Message: "half"})
			c.Respond(&wire.WireCallToolReply{Id: w.Id, ResultJson: []byte(`{"content":[{"type":"text","text":"3"}]}`)})
		}
	}))
	t.Cleanup(func() { _ = host.Root.StopFuture(pid).Wait() })

	o := &wireOwner{owner: newOwner(), progress: make(chan *messages.CallProgress, 4)}
	// A PID of the facade's own, as another member has: a PID caches the
	// process it resolves to.
	far := actor.NewPID(pid.Address, pid.Id)
	l := attach.New(attach.Config{System: facade, Owner: o, WatchTools: true,
		Locate: func(context.Context) (*actor.PID, error) { return far, nil }})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	next := func() proto.Message {
		t.Helper()
		select {
		case m := <-received:
			return m
		case <-ctx.Done():
			t.Fatal("the peer received nothing")
			return nil
		}
	}

	_, err := l.AwaitReady(ctx)
	require.NoError(t, err)
	assert.IsType(t, &wire.WireAwaitReady{}, next())
	ready := <-o.tools
	require.Len(t, ready.Tools, 1)
	assert.Equal(t, "add", ready.Tools[0].Name)
	assert.IsType(t, &wire.WireWatchTools{}, next())

	deadline := time.Now().Add(time.Minute).Round(0)
	require.NoError(t, l.Send(ctx, &messages.CallTool{ID: 7, Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`), Deadline: deadline}))
	call, ok := next().(*wire.WireCallTool)
	require.True(t, ok, "the call crossed as its wire form")
	assert.Equal(t, uint64(7), call.Id)
	assert.JSONEq(t, `{"a":1,"b":2}`, string(call.Arguments))
	assert.Equal(t, deadline.UnixNano(), call.DeadlineUnixNano)
	assert.Equal(t, &messages.CallProgress{ID: 7, Progress: 1, Total: 2, Message: "half"}, <-o.progress)
	r := o.receive(t)
	assert.Equal(t, uint64(7), r.ID)
	require.Nil(t, r.Failure)
	require.NotNil(t, r.Result)
	require.Len(t, r.Result.Content, 1)

	l.Cancel(7)
	assert.Equal(t, uint64(7), next().(*wire.WireCancelCall).Id)
	l.Close()
	assert.IsType(t, &wire.WireUnwatchTools{}, next())
}
