package agenttest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cuca-go/mcpconnector/benchmarks"
	"github.com/cuca-go/mcpconnector/plugin"
)

// BenchTool, BenchArgs and BenchWant are the call every adapter's
// benchmark makes: alpha's "add", answered at once, and its result text.
const (
	BenchTool = "alpha__add"
	BenchArgs = `{"a":1,"b":2}`
	BenchWant = "3"
)

// BenchSubjectToolbox names the baseline of [Bench]: the same call through
// the toolbox's CallTool, its result rendered as the model reads it.
const BenchSubjectToolbox = "toolbox CallTool"

// Bench measures each adapter subject (one [BenchTool] call through the
// framework's tool interface per op) against the same call through the
// toolbox's CallTool, interleaved in rotating rounds (package benchmarks'
// Interleave), about b.N ops each. It reports, per subject, p50 in ns
// ("p50-ns/<subject>"), allocations per op ("allocs/<subject>") and the p50
// overhead over CallTool in percent ("p50-overhead-%/<subject>"), and logs
// the table.
func Bench(b *testing.B, box *Box, subjects ...benchmarks.Subject) {
	b.Helper()
	args := json.RawMessage(BenchArgs)
	base := benchmarks.Subject{Name: BenchSubjectToolbox, New: func() benchmarks.Op {
		return func(ctx context.Context) error {
			res, err := box.CallTool(ctx, BenchTool, args).Await(ctx)
			if err != nil {
				return err
			}
			if got := plugin.RenderResult(res); got != BenchWant {
				return fmt.Errorf("result %q, want %q", got, BenchWant)
			}
			return nil
		}
	}}
	all := []*benchmarks.Subject{&base}
	for i := range subjects {
		all = append(all, &subjects[i])
	}
	const perRound = 20
	rounds := max(1, b.N/perRound)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	b.ResetTimer()
	results, err := benchmarks.Interleave(ctx, all, rounds, perRound, 20)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	p50 := results[0].Latency.P50
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-34s %10s %10s %10s %8s\n", "subject", "p50", "p99", "allocs/op", "p50 +%")
	for _, r := range results {
		name := strings.ReplaceAll(r.Subject, " ", "_")
		over := 100 * (float64(r.Latency.P50) - float64(p50)) / float64(p50)
		b.ReportMetric(float64(r.Latency.P50.Nanoseconds()), "p50-ns/"+name)
		b.ReportMetric(r.AllocsPerOp, "allocs/"+name)
		if r.Subject != BenchSubjectToolbox {
			b.ReportMetric(over, "p50-overhead-%/"+name)
		}
		fmt.Fprintf(&table, "%-34s %10s %10s %10.1f %+7.1f%%\n", r.Subject, r.Latency.P50, r.Latency.P99, r.AllocsPerOp, over)
	}
	b.Log(table.String())
}
