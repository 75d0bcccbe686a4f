package benchmarks_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/benchmarks"
)

// TestQuickRun runs every scenario briefly and checks that the report has a
// row for each and renders; it asserts no timing.
func TestQuickRun(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns servers for every scenario")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	rows, err := benchmarks.Run(ctx, benchmarks.QuickConfig())
	require.NoError(t, err)

	scenarios := map[string]int{}
	for _, r := range rows {
		scenarios[r.Scenario]++
	}
	for _, sc := range []string{
		benchmarks.ScenarioPassThrough, benchmarks.ScenarioHookStdio, benchmarks.ScenarioHookHTTP, benchmarks.ScenarioResourceRead,
		benchmarks.ScenarioHookLegacy, benchmarks.ScenarioPipeLimit, benchmarks.ScenarioPipeLimitHTTP,
		benchmarks.ScenarioInstant, benchmarks.ScenarioWait, benchmarks.ScenarioIdleStdio,
		benchmarks.ScenarioIdleHTTP, benchmarks.ScenarioWide,
		benchmarks.ScenarioToolboxPass, benchmarks.ScenarioToolboxHook, benchmarks.ScenarioToolboxOpen,
		benchmarks.ScenarioTurn, benchmarks.ScenarioLazyOpen, benchmarks.ScenarioLazyFirst, benchmarks.ScenarioLazyIdle,
		benchmarks.ScenarioOutageHTTP, benchmarks.ScenarioOutageStdio, benchmarks.ScenarioTask,
	} {
		assert.NotZero(t, scenarios[sc], sc)
	}
	// Each outage came back: a good call after the return, no give-up.
	for _, r := range rows {
		if r.Scenario == benchmarks.ScenarioOutageHTTP || r.Scenario == benchmarks.ScenarioOutageStdio {
			require.NotNil(t, r.Outage, r.Scenario)
			assert.False(t, r.Outage.GaveUp, "%s: no good call after the return", r.Scenario)
			assert.Equal(t, benchmarks.OutageSubject(time.Second), r.Subject)
			assert.Greater(t, r.Outage.AfterKill, r.Outage.AfterReturn, "the kill came before the return")
		}
	}
	targets := 31     // 13, the lazy servers' 3, direct tools/call's 3, an idle stdio connection against go-sdk's, the task's 3, the older revision's 2, many callers' 3 over stdio and 2 over HTTP, the resource read's 1
	if !raceEnabled { // the grid's rows need a cluster, which -race cannot run
		for _, sc := range []string{benchmarks.ScenarioGridHook, benchmarks.ScenarioGridWait} {
			assert.NotZero(t, scenarios[sc], sc)
		}
		targets += 2
	}

	rep := &benchmarks.Report{Rows: rows, Machine: benchmarks.Machine(), Date: time.Now(), Command: "test"}
	var md, svg bytes.Buffer
	rep.Markdown(&md)
	require.NoError(t, rep.SVG(&svg))
	assert.Contains(t, md.String(), "| hook call, stdio | plugin hook |")
	assert.Contains(t, md.String(), "| hook call, stdio | "+benchmarks.SubjectStdioConn+" |")
	assert.Contains(t, md.String(), "| hook call, stdio | plugin hook, tracing on |")
	assert.Contains(t, md.String(), "| hook call, stdio | "+benchmarks.SubjectPluginDirect+" |")
	assert.Contains(t, md.String(), "| hook call, stdio | "+benchmarks.SubjectMCPGo+" |")
	assert.Contains(t, md.String(), "| "+benchmarks.ScenarioTurn+" | "+benchmarks.SubjectTurn4+" |")
	assert.Contains(t, md.String(), "| "+benchmarks.ScenarioLazyOpen+" | "+benchmarks.SubjectLazy+" |")
	assert.Contains(t, md.String(), "| "+benchmarks.ScenarioResourceRead+" | "+benchmarks.SubjectPluginReadResource+" |")
	assert.Contains(t, md.String(), "| "+benchmarks.ScenarioHookLegacy+" | "+benchmarks.SubjectLegacyHook+" |")
	assert.Contains(t, md.String(), "| "+benchmarks.ScenarioPipeLimit+" | "+benchmarks.SubjectPipeMux+" | 16 |")
	assert.Contains(t, md.String(), "| "+benchmarks.ScenarioPipeLimitHTTP+" | "+benchmarks.SubjectHTTPRaw+" | 16 |")
	assert.Contains(t, md.String(), "Targets (reported, not asserted)")
	assert.True(t, strings.HasPrefix(svg.String(), "<svg"), svg.String())
	assert.Len(t, rep.Targets(), targets)
}

func TestSummarize(t *testing.T) {
	var samples []time.Duration
	for i := 100; i >= 1; i-- {
		samples = append(samples, time.Duration(i))
	}
	st := benchmarks.Summarize(samples)
	assert.Equal(t, benchmarks.Stats{N: 100, P50: 50, P90: 90, P99: 99, Mean: 50, Max: 100}, st)
	assert.Equal(t, benchmarks.Stats{}, benchmarks.Summarize(nil))
}

func TestDur(t *testing.T) {
	for d, want := range map[time.Duration]string{
		57:                       "57 ns",
		452_300:                  "452 µs",
		21_340_000:               "21.3 ms",
		1_500 * time.Millisecond: "1.50 s",
		0:                        "–",
	} {
		assert.Equal(t, want, benchmarks.Dur(d))
	}
}
