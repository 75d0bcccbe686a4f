package attach_test

import (
	"context"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/core/attach"
	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/messages"
)

// A resource request reaches the actor and its reply comes back; one that
// comes back as a dead letter goes to the actor's next home; a failure of
// the actor's own is the reply's, named for the request; ctx's end cancels
// it where it went.
func TestServerRequestThroughTheLink(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	cancels := make(chan uint64, 1)
	serving := system.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch m := c.Message().(type) {
		case *messages.ServerRequest:
			switch m.Method {
			case messages.MethodListPrompts:
				c.Respond(&messages.ServerReply{ID: m.ID, Result: &mcp.ListPromptsResult{Prompts: []*mcp.Prompt{{Name: "p"}}}})
			case messages.MethodGetPrompt:
				c.Respond(&messages.Failure{Kind: messages.FailureInternal, Message: "no server"})
			default: // never answered
			}
		case *messages.CancelCall:
			cancels <- m.ID
		}
	}))
	gone := system.Root.Spawn(actor.PropsFromFunc(func(actor.Context) {}))
	require.NoError(t, system.Root.StopFuture(gone).Wait())
	homes := []*actor.PID{gone, serving}
	located := 0
	l := attach.New(attach.Config{System: system, Owner: newOwner(), Locate: func(context.Context) (*actor.PID, error) {
		pid := homes[min(located, len(homes)-1)]
		located++
		return pid, nil
	}})
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	r, err := l.ServerRequest(ctx, &messages.ServerRequest{ID: 1, Method: messages.MethodListPrompts})
	require.NoError(t, err)
	assert.Equal(t, 2, located, "the dead letter of the stopped home sent it to the next")
	require.Nil(t, r.Failure)
	assert.Equal(t, "p", r.Result.(*mcp.ListPromptsResult).Prompts[0].Name)

	r, err = l.ServerRequest(ctx, &messages.ServerRequest{ID: 2, Method: messages.MethodGetPrompt, Name: "x"})
	require.NoError(t, err)
	require.NotNil(t, r.Failure)
	assert.Equal(t, `prompts/get "x"`, r.Failure.Op)

	short, stop := context.WithTimeout(ctx, 50*time.Millisecond) // must expire: the read is never answered
	defer stop()
	_, err = l.ServerRequest(short, &messages.ServerRequest{ID: 3, Method: messages.MethodReadResource, URI: "file:///x"})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, uint64(3), <-cancels, "cancelled where it went")
}
