package wire_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/core/tasks"
	"github.com/cuca-go/mcpconnector/internal/core/wire"
	"github.com/cuca-go/mcpconnector/messages"
)

// A call's state in the tasks extension (messages.CallTool.Ext) crosses
// the wire whole, read back by the reader the extension registered.
func TestACallsTaskCrossesTheWire(t *testing.T) {
	ttl, interval, state := int64(3600), int64(250), "rs-7"
	created := time.Date(2026, 7, 28, 10, 0, 0, 5, time.UTC)
	x := &tasks.Call{Deadline: time.Unix(1800000000, 42), Limit: "the task timeout of 24h0m0s (WithTasks)", Want: true,
		Resume: &messages.TaskState{ID: "t-1", Status: "working", StatusMessage: "step 3", CreatedAt: created,
			LastUpdatedAt: created.Add(time.Minute), TTLSeconds: &ttl, PollIntervalMilliseconds: &interval, RequestState: &state}}
	got := roundTrip(t, &messages.CallTool{ID: 9, Name: "work", Ext: x}).(*messages.CallTool)
	g := tasks.CallOf(got)
	require.NotNil(t, g)
	assert.True(t, x.Deadline.Equal(g.Deadline))
	assert.Equal(t, x.Limit, g.Limit)
	assert.True(t, g.Want)
	assert.True(t, got.Ext.Resumes())
	require.NotNil(t, g.Resume)
	assert.Equal(t, *x.Resume, *g.Resume, "the task to resume, whole")

	// No task, no state, no time to live: each stays none.
	bare := roundTrip(t, &messages.CallTool{Name: "x"}).(*messages.CallTool)
	assert.Nil(t, bare.Ext)
	some := roundTrip(t, &messages.CallTool{Name: "x", Ext: &tasks.Call{Resume: &messages.TaskState{ID: "t-2", Status: "working"}}}).(*messages.CallTool)
	s := tasks.CallOf(some)
	require.NotNil(t, s)
	require.NotNil(t, s.Resume)
	assert.True(t, s.Deadline.IsZero())
	assert.Nil(t, s.Resume.RequestState, "no requestState is not an empty one")
	assert.Nil(t, s.Resume.TTLSeconds, "no time to live is not zero")
	assert.True(t, s.Resume.CreatedAt.IsZero())
}

// The state of an extension this process has no reader for crosses the
// wire again unchanged.
func TestAnUnknownExtensionsStateIsKept(t *testing.T) {
	w := &wire.WireCallTool{Name: "x", Ext: &wire.WireCallExt{Name: "example/other", State: []byte(`{"a":1}`)}}
	m, ok := wire.FromWire(w)
	require.True(t, ok)
	call := m.(*messages.CallTool)
	require.NotNil(t, call.Ext)
	assert.Equal(t, "example/other", call.Ext.ExtName())
	assert.False(t, call.Ext.Resumes())
	again := roundTrip(t, call).(*messages.CallTool)
	b, err := json.Marshal(again.Ext)
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":1}`, string(b))
}
