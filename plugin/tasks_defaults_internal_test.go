package plugin

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/cuca-go/mcpconnector/internal/core/tasks"
)

// TaskOptions' doc and docs/tasks.md state the defaults as figures; the
// values the tasks extension uses must be those.
func TestTaskOptionsDefaultsAreTheDocumentedOnes(t *testing.T) {
	assert.Equal(t, time.Second, tasks.DefaultInterval)
	assert.Equal(t, 50*time.Millisecond, tasks.MinInterval)
	assert.Equal(t, 30*time.Second, tasks.MaxInterval)
	assert.Equal(t, 24*time.Hour, tasks.DefaultTimeout)
}
