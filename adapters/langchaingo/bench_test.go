package langchainmcp_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"

	langchainmcp "github.com/cuca-go/mcpconnector/adapters/langchaingo"
	"github.com/cuca-go/mcpconnector/internal/agenttools/agenttest"
	"github.com/cuca-go/mcpconnector/plugin"
)

const benchArgs = `{"a":2,"b":3}`

// benchCalls returns one alpha__add call through langchaingo's tool interface and
// the same call through the toolbox's CallTool (rendered, as the model
// reads it).
func benchCalls(b *testing.B) (viaLangchain, viaCallTool func(context.Context) string) {
	box := agenttest.Open(b, agenttest.Options{})
	ts, err := langchainmcp.Tools(context.Background(), box)
	require.NoError(b, err)
	var add tools.Tool
	for _, tl := range ts {
		if tl.Name() == "alpha__add" {
			add = tl
		}
	}
	require.NotNil(b, add)
	viaLangchain = func(ctx context.Context) string {
		out, err := add.Call(ctx, benchArgs)
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
	require.Equal(b, "5", viaLangchain(context.Background()))
	require.Equal(b, "5", viaCallTool(context.Background()))
	return viaLangchain, viaCallTool
}

// BenchmarkToolCall runs one call through langchaingo's tools.Tool and the
// same call through the toolbox's CallTool, interleaved (the order
// alternating), and reports each one's median and what the adapter adds
// to it. The sub-benchmarks count each path's allocations.
func BenchmarkToolCall(b *testing.B) {
	viaLangchain, viaCallTool := benchCalls(b)
	ctx := context.Background()
	b.Run("interleaved", func(b *testing.B) {
		var lc, direct []time.Duration
		for i := 0; b.Loop(); i++ {
			first, second, df, ds := viaLangchain, viaCallTool, &lc, &direct
			if i%2 == 1 {
				first, second, df, ds = viaCallTool, viaLangchain, &direct, &lc
			}
			t0 := time.Now()
			first(ctx)
			t1 := time.Now()
			second(ctx)
			t2 := time.Now()
			*df = append(*df, t1.Sub(t0))
			*ds = append(*ds, t2.Sub(t1))
		}
		pe, pd := median(lc), median(direct)
		b.ReportMetric(float64(pe.Nanoseconds())/1e3, "langchaingo-p50-µs")
		b.ReportMetric(float64(pd.Nanoseconds())/1e3, "calltool-p50-µs")
		b.ReportMetric(100*(float64(pe)/float64(pd)-1), "added-%")
	})
	b.Run("langchaingo", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			viaLangchain(ctx)
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
