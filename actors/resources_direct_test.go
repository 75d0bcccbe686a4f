package actors_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// readIDs is a go-sdk server over loopback HTTP that notes the id of
// every resources/read POSTed to it.
type readIDs struct {
	mu  sync.Mutex
	ids []json.Number
}

func (r *readIDs) server(t *testing.T) *httptest.Server {
	t.Helper()
	sdk := testserver.NewHTTPHandler(keepAliveServer())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Mcp-Method") == messages.MethodReadResource {
			body, _ := io.ReadAll(req.Body)
			req.Body = io.NopCloser(bytes.NewReader(body))
			var m struct {
				ID json.Number `json:"id"`
			}
			_ = json.Unmarshal(body, &m)
			r.mu.Lock()
			r.ids = append(r.ids, m.ID)
			r.mu.Unlock()
		}
		sdk.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (r *readIDs) take() []json.Number {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := r.ids
	r.ids = nil
	return ids
}

// A read over Streamable HTTP takes the direct path (an id of its own,
// below go-sdk's; the session's, go-sdk's id, with the path turned off in
// the environment), and its reply is the one the session's read gives: the
// same result, and the same failure for a resource the server does not
// have.
func TestReadsOverHTTPTakeTheDirectPath(t *testing.T) {
	var seen readIDs
	srv := seen.server(t)
	system := actor.NewActorSystem(quiet.Actors())
	connect := func(off bool) *actor.PID {
		pid := system.Root.Spawn(actors.NewConnectionProps(actors.ConnectionConfig{
			Transport: transport.StreamableHTTP{URL: srv.URL, DisableDirectCalls: off}}))
		t.Cleanup(func() { require.NoError(t, system.Root.StopFuture(pid).Wait()) })
		res, err := system.Root.RequestFuture(pid, &messages.AwaitReady{}, 30*time.Second).Result()
		require.NoError(t, err)
		require.IsType(t, &messages.Ready{}, res)
		return pid
	}
	direct, session := connect(false), connect(true)
	read := func(pid *actor.PID, uri string) *messages.ServerReply {
		reply, err := system.Root.RequestFuture(pid, &messages.ServerRequest{ID: 1, Method: messages.MethodReadResource, URI: uri}, 30*time.Second).Result()
		require.NoError(t, err)
		require.IsType(t, &messages.ServerReply{}, reply)
		return reply.(*messages.ServerReply)
	}

	seen.take()
	got := read(direct, "file:///k.txt")
	ids := seen.take()
	require.Len(t, ids, 1)
	n, err := ids[0].Int64()
	require.NoError(t, err)
	if os.Getenv(transport.DirectCallsEnv) == "0" {
		assert.Positive(t, n, "go-sdk's id: the environment turned the direct path off")
	} else {
		assert.Less(t, n, int64(-1<<40), "the direct path's id")
	}
	want := read(session, "file:///k.txt")
	ids = seen.take()
	require.Len(t, ids, 1)
	n, err = ids[0].Int64()
	require.NoError(t, err)
	assert.Positive(t, n, "go-sdk's id")
	require.Nil(t, got.Failure, "%+v", got.Failure)
	assert.True(t, reflect.DeepEqual(want, got), "got %#v, want %#v", got, want)

	got, want = read(direct, "file:///nothing"), read(session, "file:///nothing")
	require.NotNil(t, got.Failure)
	require.NotNil(t, want.Failure)
	assert.Equal(t, want.Failure.Op, got.Failure.Op)
	assert.Equal(t, want.Failure.Kind, got.Failure.Kind)
	assert.Equal(t, want.Failure.Cause, got.Failure.Cause)
	assert.Equal(t, want.Failure.Message, got.Failure.Message)
}
