package messages_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/messages"
)

func TestACallsTaskCrossesTheWire(t *testing.T) {
	ttl, interval, state := int64(3600), int64(250), "rs-7"
	created := time.Date(2026, 7, 28, 10, 0, 0, 5, time.UTC)
	call := &messages.CallTool{ID: 9, Name: "work",
		TaskDeadline: time.Unix(1800000000, 42), TaskLimit: "the task timeout of 24h0m0s (WithTasks)",
		Task: &messages.TaskState{ID: "t-1", Status: "working", StatusMessage: "step 3", CreatedAt: created,
			LastUpdatedAt: created.Add(time.Minute), TTLSeconds: &ttl, PollIntervalMilliseconds: &interval, RequestState: &state}}
	got := roundTrip(t, call).(*messages.CallTool)
	assert.True(t, call.TaskDeadline.Equal(got.TaskDeadline))
	assert.Equal(t, call.TaskLimit, got.TaskLimit)
	require.NotNil(t, got.Task)
	assert.Equal(t, *call.Task, *got.Task, "the task to resume, whole")

	// No task, no state, no time to live: each stays none.
	bare := roundTrip(t, &messages.CallTool{Name: "x"}).(*messages.CallTool)
	assert.Nil(t, bare.Task)
	assert.True(t, bare.TaskDeadline.IsZero())
	some := roundTrip(t, &messages.CallTool{Name: "x", Task: &messages.TaskState{ID: "t-2", Status: "working"}}).(*messages.CallTool)
	require.NotNil(t, some.Task)
	assert.Nil(t, some.Task.RequestState, "no requestState is not an empty one")
	assert.Nil(t, some.Task.TTLSeconds, "no time to live is not zero")
	assert.True(t, some.Task.CreatedAt.IsZero())
}
