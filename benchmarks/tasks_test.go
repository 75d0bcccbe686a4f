package benchmarks_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/benchmarks"
)

// TestTaskScenario runs the task scenario alone, briefly, and checks its
// rows and targets render; it asserts no timing.
func TestTaskScenario(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := benchmarks.QuickConfig()
	cfg.Only = []string{benchmarks.ScenarioTask}
	rows, err := benchmarks.Run(ctx, cfg)
	require.NoError(t, err)
	var subjects []string
	for _, r := range rows {
		assert.Equal(t, benchmarks.ScenarioTask, r.Scenario)
		subjects = append(subjects, r.Subject)
	}
	assert.Equal(t, []string{benchmarks.SubjectTaskCompletion, benchmarks.SubjectTaskNotified, benchmarks.SubjectTaskListened,
		benchmarks.SubjectTaskPoll, benchmarks.SubjectTaskQuick}, subjects)
	assert.Equal(t, cfg.TaskRounds, rows[0].Latency.N)
	assert.Equal(t, cfg.TaskRounds, rows[1].Latency.N)
	assert.Equal(t, cfg.TaskRounds, rows[2].Latency.N)
	assert.NotZero(t, rows[3].CPUPerOp, "the client spends CPU on a poll")

	rep := &benchmarks.Report{Rows: rows, Machine: benchmarks.Machine(), Date: time.Now(), Command: "test"}
	var md bytes.Buffer
	rep.Markdown(&md)
	assert.Contains(t, md.String(), "| "+benchmarks.ScenarioTask+" | "+benchmarks.SubjectTaskPoll+" |")
	assert.Contains(t, md.String(), "after its completion")
	assert.Contains(t, md.String(), "a notified task's result")
	assert.Len(t, rep.Targets(), 3)
}
