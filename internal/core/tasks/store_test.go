package tasks_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/core/tasks"
	"github.com/cuca-go/mcpconnector/messages"
)

func TestDirTaskStoreKeepsOneRecordPerTask(t *testing.T) {
	s := tasks.DirStore{Dir: filepath.Join(t.TempDir(), "pending")}
	ctx := t.Context()
	list, err := s.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, list)
	state := func(v string) *string { return &v }
	require.NoError(t, s.Put(ctx, tasks.Record{Server: "a", Tool: "work", Task: messages.TaskState{ID: "1", Status: "working", RequestState: state("s1")}}))
	require.NoError(t, s.Put(ctx, tasks.Record{Server: "a", Tool: "work", Task: messages.TaskState{ID: "1", Status: "working", RequestState: state("s2")}}))
	require.NoError(t, s.Put(ctx, tasks.Record{Server: "b", Tool: "work", Task: messages.TaskState{ID: "1", Status: "working"}}))
	list, err = s.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	byServer := map[string]tasks.Record{}
	for _, r := range list {
		byServer[r.Server] = r
	}
	assert.Equal(t, "s2", *byServer["a"].Task.RequestState)
	assert.Nil(t, byServer["b"].Task.RequestState)
	require.NoError(t, s.Delete(ctx, "a", "1"))
	require.NoError(t, s.Delete(ctx, "a", "1"), "deleting twice is no error")
	list, err = s.List(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 1)
	require.Error(t, s.Put(ctx, tasks.Record{Server: "a"}))
}
