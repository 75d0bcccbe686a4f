package einomcp_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/require"

	einomcp "github.com/cuca-go/mcpconnector/adapters/eino"
	"github.com/cuca-go/mcpconnector/internal/agenttools/agenttest"
	"github.com/cuca-go/mcpconnector/plugin"
)

const benchArgs = `{"a":2,"b":3}`

// benchCalls returns one alpha__add call through eino's tool interface and
// the same call through the toolbox's CallTool (rendered, as the model
// reads it).
func benchCalls(b *testing.B) (viaEino, viaCallTool func(context.Context) string) {
	box := agenttest.Open(b, agenttest.Options{})
	ts, err := einomcp.Tools(context.Background(), box)
	require.NoError(b, err)
	var add tool.InvokableTool
	for _, tl := range ts {
		if info, _ := tl.Info(context.Background()); info.Name == "alpha__add" {
			add = tl.(tool.InvokableTool)
		}
	}
	require.NotNil(b, add)
	viaEino = func(ctx context.Context) string {
		out, err := add.InvokableRun(ctx, benchArgs)
		if err != nil {
			b.Fatal(err)
		}
		return out
	}
	viaCallTool = func(ctx context.Context) string {
		res, err := box.CallTool(ctx, "alpha__add", json.RawMessage(benchArgs)).Await(ctx)
		if err != nil {
			b.Fatal(err)
		}
		return plugin.RenderResult(res)
	}
	require.Equal(b, "5", viaEino(context.Background()))
	require.Equal(b, "5", viaCallTool(context.Background()))
	return viaEino, viaCallTool
}

// BenchmarkToolCall runs one call through eino's InvokableTool and the
// same call through the toolbox's CallTool, interleaved (the order
// alternating), and reports each one's median and what the adapter adds
// to it. The sub-benchmarks count each path's allocations.
func BenchmarkToolCall(b *testing.B) {
	viaEino, viaCallTool := benchCalls(b)
	ctx := context.Background()
	b.Run("interleaved", func(b *testing.B) {
		var eino, direct []time.Duration
		for i := 0; b.Loop(); i++ {
			first, second, df, ds := viaEino, viaCallTool, &eino, &direct
			if i%2 == 1 {
				first, second, df, ds = viaCallTool, viaEino, &direct, &eino
			}
			t0 := time.Now()
			first(ctx)
			t1 := time.Now()
			second(ctx)
			t2 := time.Now()
			*df = append(*df, t1.Sub(t0))
			*ds = append(*ds, t2.Sub(t1))
		}
		pe, pd := median(eino), median(direct)
		b.ReportMetric(float64(pe.Nanoseconds())/1e3, "eino-p50-µs")
		b.ReportMetric(float64(pd.Nanoseconds())/1e3, "calltool-p50-µs")
		b.ReportMetric(100*(float64(pe)/float64(pd)-1), "added-%")
	})
	b.Run("eino", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			viaEino(ctx)
		}
	})
	b.Run("calltool", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			viaCallTool(ctx)
		}
	})
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
