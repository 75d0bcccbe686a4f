package genkitmcp_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/firebase/genkit/go/genkit"
	"github.com/stretchr/testify/require"

	genkitmcp "github.com/cuca-go/mcpconnector/adapters/genkit"
	"github.com/cuca-go/mcpconnector/internal/agenttools/agenttest"
	"github.com/cuca-go/mcpconnector/plugin"
)

const benchArgs = `{"a":2,"b":3}`

// benchCalls returns one alpha__add call through Genkit's tool interface and
// the same call through the toolbox's CallTool (rendered, as the model
// reads it).
func benchCalls(b *testing.B) (viaGenkit, viaCallTool func(context.Context) string) {
	box := agenttest.Open(b, agenttest.Options{})
	c, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	g := genkit.Init(c)
	_, _, err := genkitmcp.Tools(context.Background(), g, box)
	require.NoError(b, err)
	add := genkit.LookupTool(g, "alpha__add")
	require.NotNil(b, add)
	// The input as Genkit hands it over: the model's JSON, decoded.
	var in any
	require.NoError(b, json.Unmarshal([]byte(benchArgs), &in))
	viaGenkit = func(ctx context.Context) string {
		out, err := add.RunRaw(ctx, in)
		if err != nil {
			b.Fatal(err)
		}
		return out.(string)
	}
	viaCallTool = func(ctx context.Context) string {
		res, err := box.CallTool(ctx, "alpha__add", json.RawMessage(benchArgs)).Await(ctx)
		if err != nil {
			b.Fatal(err)
		}
		return plugin.RenderResult(res)
	}
	require.Equal(b, "5", viaGenkit(context.Background()))
	require.Equal(b, "5", viaCallTool(context.Background()))
	return viaGenkit, viaCallTool
}

// BenchmarkToolCall runs one call through Genkit's tool (RunRaw) and the
// same call through the toolbox's CallTool, interleaved (the order
// alternating), and reports each one's median and what the adapter adds
// to it. The sub-benchmarks count each path's allocations.
func BenchmarkToolCall(b *testing.B) {
	viaGenkit, viaCallTool := benchCalls(b)
	ctx := context.Background()
	b.Run("interleaved", func(b *testing.B) {
		var gk, direct []time.Duration
		for i := 0; b.Loop(); i++ {
			first, second, df, ds := viaGenkit, viaCallTool, &gk, &direct
			if i%2 == 1 {
				first, second, df, ds = viaCallTool, viaGenkit, &direct, &gk
			}
			t0 := time.Now()
			first(ctx)
			t1 := time.Now()
			second(ctx)
			t2 := time.Now()
			*df = append(*df, t1.Sub(t0))
			*ds = append(*ds, t2.Sub(t1))
		}
		pe, pd := median(gk), median(direct)
		b.ReportMetric(float64(pe.Nanoseconds())/1e3, "genkit-p50-µs")
		b.ReportMetric(float64(pd.Nanoseconds())/1e3, "calltool-p50-µs")
		b.ReportMetric(100*(float64(pe)/float64(pd)-1), "added-%")
	})
	b.Run("genkit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			viaGenkit(ctx)
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
