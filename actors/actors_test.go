package actors_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/messages"
)

// A host spawns the actors from their Props in its own system and speaks
// messages to them: the supervisor and the bare connection alike.
func TestActorsSpeakTheMessagesProtocol(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	propsFor := map[string]*actor.Props{
		"supervisor": actors.NewSupervisorProps(actors.SupervisorConfig{
			Connection: actors.ConnectionConfig{Transport: testserver.Stdio(t)},
		}),
		"connection": actors.NewConnectionProps(actors.ConnectionConfig{Transport: testserver.Stdio(t)}),
	}
	for name, props := range propsFor {
		t.Run(name, func(t *testing.T) {
			pid := system.Root.Spawn(props)
			defer func() { require.NoError(t, system.Root.StopFuture(pid).Wait()) }()

			res, err := system.Root.RequestFuture(pid, &messages.AwaitReady{}, 30*time.Second).Result()
			require.NoError(t, err)
			ready, ok := res.(*messages.Ready)
			require.True(t, ok, "got %T", res)
			assert.Equal(t, actors.ProtocolVersion, ready.ProtocolVersion)
			assert.Equal(t, "testserver", ready.ServerInfo.Name)
			assert.Len(t, ready.Tools, len(testserver.ToolNames))

			res, err = system.Root.RequestFuture(pid, &messages.CallTool{
				ID: 7, Name: "add", Arguments: json.RawMessage(`{"a":40,"b":2}`),
			}, 30*time.Second).Result()
			require.NoError(t, err)
			reply, ok := res.(*messages.CallToolReply)
			require.True(t, ok, "got %T", res)
			assert.Equal(t, uint64(7), reply.ID)
			require.Nil(t, reply.Failure)
			assert.Equal(t, "42", reply.Result.Content[0].(*mcp.TextContent).Text)

			res, err = system.Root.RequestFuture(pid, &messages.CallTool{
				ID: 8, Name: "add", Deadline: time.Now().Add(-time.Second),
			}, 30*time.Second).Result()
			require.NoError(t, err)
			reply = res.(*messages.CallToolReply)
			require.NotNil(t, reply.Failure, "an expired call is answered, never sent")
			assert.Equal(t, messages.FailureInternal, reply.Failure.Kind)
			assert.Contains(t, reply.Failure.Message, "deadline passed")
		})
	}
}
