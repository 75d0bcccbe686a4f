package transport

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
)

// The goroutine that reads children's stderr waits in the runtime's
// poller ("IO wait"), never in a blocking epoll_wait ("syscall"): a
// goroutine that enters a blocking system call can hold up a stop of the
// world in go1.26 (docs/interoperability.md).
func TestTheStderrPollerWaitsInTheRuntimesPoller(t *testing.T) {
	noLeaks(t)
	cs, _, _ := session(t, child(t, "mcp"), zap.NewNop())
	echo(t, cs, "x")
	var header string
	require.Eventually(t, func() bool {
		header = pollerHeader()
		return strings.Contains(header, "[IO wait")
	}, time.Minute, time.Millisecond, "the poller's goroutine never waited in the runtime's poller: %q", header)
	stderrs.mu.Lock()
	assert.NotNil(t, stderrs.raw, "the epoll instance is polled by the runtime")
	stderrs.mu.Unlock()
	require.NoError(t, cs.Close())
}

// pollerHeader is the first line of the stderr poller's goroutine in a
// dump of every goroutine, or "".
func pollerHeader() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "(*stderrPoller).run") {
			return strings.SplitN(g, "\n", 2)[0]
		}
	}
	return ""
}
