package toolbox_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/countserver"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

func TestABrokenEntryIsAFailedServerAndTheOthersStart(t *testing.T) {
	t.Setenv("TOOLBOX_TEST_UNSET", "")
	os.Unsetenv("TOOLBOX_TEST_UNSET")
	good := stdioEntry(t)
	cfg := config(t, map[string]entry{
		"good":  good,
		"bad":   {"command": 1},
		"unset": {"command": "x", "env": map[string]string{"TOKEN": "${TOOLBOX_TEST_UNSET}"}},
	})
	require.Len(t, cfg.Problems, 2)
	tb := open(t, cfg)
	assert.Equal(t, []string{"bad", "good", "unset"}, tb.Servers())
	st := tb.Status()
	assert.Equal(t, actors.Ready, st["good"].State)
	for _, name := range []string{"bad", "unset"} {
		assert.Equal(t, actors.Failed, st[name].State, name)
		var cerr *mcpconfig.Error
		require.ErrorAs(t, st[name].LastError, &cerr, name)
		assert.Equal(t, name, cerr.Server)
	}
	assert.Contains(t, st["unset"].LastError.Error(), `variable "TOOLBOX_TEST_UNSET" is not set; set it in the environment or supply it with mcpconfig.WithVariables`)
	assert.Contains(t, call(t, tb, "good__echo", map[string]any{"text": "hi"}), "hi")

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err := toolbox.Open(ctx, cfg, toolbox.WithStrict())
	var cerr *mcpconfig.Error
	require.ErrorAs(t, err, &cerr, "strict: a broken entry fails Open")
}

func TestAnUntrustedLayersServerStartsNothingUntilApproved(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "starts")
	e := counted(t, log, "1", nil)
	project := filepath.Join(dir, "project.json")
	data := fmt.Sprintf(`{"mcpServers": {"repo": {"command": %q, "args": [%q], "env": {%q: %q, %q: %q, "GORACE": "atexit_sleep_ms=0"}}}}`,
		e["command"], e["args"].([]string)[0], countserver.StartLogEnv, log, countserver.VariantEnv, "1")
	require.NoError(t, os.WriteFile(project, []byte(data), 0o600))

	var asked []string
	cfg, err := mcpconfig.LoadLayers([]mcpconfig.Layer{{Path: project, Untrusted: true}},
		mcpconfig.WithApprove(func(s *mcpconfig.Server, what string) bool {
			asked = append(asked, what)
			return false
		}))
	require.NoError(t, err)
	require.Len(t, asked, 1)
	assert.Contains(t, asked[0], "run "+e["command"].(string), "the approval names the command")
	assert.True(t, cfg.Untrusted["repo"])

	tb := open(t, cfg)
	st := tb.Status()["repo"]
	assert.Equal(t, actors.Failed, st.State)
	require.ErrorIs(t, st.LastError, toolbox.ErrUntrusted)
	assert.Contains(t, st.LastError.Error(), e["command"].(string))
	assert.Equal(t, 0, countserver.Starts(t, log), "no command runs before the approval")
	require.NoError(t, tb.Close())

	cfg.Approve("repo")
	tb = open(t, cfg)
	assert.Equal(t, actors.Ready, tb.Status()["repo"].State)
	assert.Equal(t, 1, countserver.Starts(t, log))
}

// headersServer is the test server behind a check of its Authorization
// header: it accepts "Bearer t<n>" for n >= accept and answers 401 to
// any other.
func headersServer(t *testing.T, accept int) (url string, unauthorized *atomic.Int32) {
	unauthorized = new(atomic.Int32)
	h := testserver.NewHTTPHandler(testserver.NewServer())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		if _, err := fmt.Sscanf(r.Header.Get("Authorization"), "Bearer t%d", &n); err != nil || n < accept {
			unauthorized.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, unauthorized
}

// counterHelper is a headersHelper that counts its runs in a file and
// prints {"Authorization": "Bearer t<run>"}.
func counterHelper(t *testing.T) (command, counter string) {
	counter = filepath.Join(t.TempDir(), "runs")
	return fmt.Sprintf(`n=$(cat %[1]q 2>/dev/null || echo 0); n=$((n+1)); echo $n > %[1]q; printf '{"Authorization": "Bearer t%%s"}' $n`, counter), counter
}

func TestAHeadersHelpersHeadersReachTheServerAndA401RunsItAgain(t *testing.T) {
	url, unauthorized := headersServer(t, 2) // the first run's token is stale
	helper, counter := counterHelper(t)
	core, logs := observer.New(zap.DebugLevel)
	tb := open(t, config(t, map[string]entry{"remote": {"type": "http", "url": url, "headersHelper": helper}}),
		toolbox.WithPluginOptions(plugin.WithLogger(zap.New(core))))
	assert.Contains(t, call(t, tb, "remote__echo", map[string]any{"text": "hi"}), "hi")
	runs, err := os.ReadFile(counter)
	require.NoError(t, err)
	assert.Equal(t, "2", strings.TrimSpace(string(runs)), "run once, then again for the 401")
	assert.Equal(t, int32(1), unauthorized.Load())
	for _, e := range logs.All() {
		assert.NotContains(t, fmt.Sprint(e.Message, e.ContextMap()), "Bearer t", "the helper's output is never logged")
	}
}

func TestAFailingHeadersHelperIsTheServersErrorWithoutItsOutput(t *testing.T) {
	url, _ := headersServer(t, 1)
	cfg := config(t, map[string]entry{
		"exits":   {"type": "http", "url": url, "headersHelper": `echo '{"Authorization": "Bearer secret-t1"}'; exit 3`},
		"garbled": {"type": "http", "url": url, "headersHelper": `echo 'Authorization: Bearer secret-t1'`},
	})
	tb := open(t, cfg, toolbox.WithPluginOptions(plugin.WithRestartBudget(1, time.Hour)))
	for name, want := range map[string]string{"exits": "exited with status 3", "garbled": "not one JSON object"} {
		st := tb.Status()[name]
		assert.Equal(t, actors.Failed, st.State, name)
		require.Error(t, st.LastError, name)
		assert.Contains(t, st.LastError.Error(), toolbox.ErrHeadersHelper.Error(), name)
		assert.Contains(t, st.LastError.Error(), want, name)
		assert.NotContains(t, st.LastError.Error(), "secret", name)
	}
}
