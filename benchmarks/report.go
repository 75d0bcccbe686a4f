package benchmarks

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"time"
)

// Subject names the report compares rows by.
const (
	nameHook   = "plugin hook"
	nameDirect = "go-sdk direct"
	nameRaw    = "raw JSON-RPC echo"
	nameWorker = "one-worker model"
)

// Report is one run of the suite and what it ran on.
type Report struct {
	Rows []Row
	// Command is the command line that produced the report.
	Command string
	// Machine describes the CPU, cores, OS and Go version.
	Machine string
	// Load is the load average before and after the run, when known.
	Load string
	// Date is when the run started; Elapsed how long it took.
	Date    time.Time
	Elapsed time.Duration
	// ToolSearch, when measured, is tool search on real tool lists
	// ([Report.AddToolSearch]).
	ToolSearch *ToolSearchFigures
}

// Machine describes this machine: CPU model, cores, OS and Go version.
func Machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d cores (GOMAXPROCS %d), %s/%s, %s",
		cpu, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// LoadAverage is the 1-minute load average, or "?" where unknown.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

func (r *Report) find(scenario, subject string, callers int) *Row {
	for i := range r.Rows {
		row := &r.Rows[i]
		if row.Scenario == scenario && row.Subject == subject && row.Callers == callers {
			return row
		}
	}
	return nil
}

// Target is one of the goals and how this run did against it.
type Target struct {
	Goal string
	Got  string
	// Met is false when missed; Reported targets have no threshold.
	Met, Reported bool
}

// Targets evaluates the goals the table is read against. Timing is never
// asserted: this is what a reader checks.
func (r *Report) Targets() []Target {
	var out []Target
	for _, name := range []string{"text + thinking chunk", "unknown tool name"} {
		if row := r.find(ScenarioPassThrough, name, 0); row != nil {
			out = append(out, Target{
				Goal: "pass-through (" + name + "): p50 < 100 ns, 0 allocs",
				Got:  fmt.Sprintf("%s, %s allocs", Dur(row.Latency.P50), num(row.AllocsPerOp)),
				Met:  row.Latency.P50 < 100*time.Nanosecond && row.AllocsPerOp < 0.01,
			})
		}
	}
	if hook, direct := r.find(ScenarioHookStdio, nameHook, 0), r.find(ScenarioHookStdio, nameDirect, 0); hook != nil && direct != nil {
		// Our own stdio connection is to pay for the actor hops and more.
		x := float64(hook.Latency.P50) / float64(direct.Latency.P50)
		out = append(out, Target{
			Goal: ScenarioHookStdio + ": p50 at most 1.05x go-sdk direct (its CommandTransport), allocs and bytes per call below it",
			Got: fmt.Sprintf("%.2fx, %s vs %s allocs, %s vs %s", x, num(hook.AllocsPerOp), num(direct.AllocsPerOp),
				bytesStr(hook.BytesPerOp), bytesStr(direct.BytesPerOp)),
			Met: x <= 1.05 && hook.AllocsPerOp < direct.AllocsPerOp && hook.BytesPerOp < direct.BytesPerOp,
		})
	}
	out = append(out, r.directCallTargets()...)
	out = append(out, r.legacyTargets()...)
	out = append(out, r.pipeLimitTargets()...)
	out = append(out, r.pipeLimitHTTPTargets()...)
	out = append(out, r.resourceTargets()...)
	if own, direct := r.find(ScenarioHookStdio, SubjectStdioConn, 0), r.find(ScenarioHookStdio, nameDirect, 0); own != nil && direct != nil {
		out = append(out, Target{
			Goal: "stdio connection alone (go-sdk session on ours vs on its CommandTransport)",
			Got: fmt.Sprintf("p50 %+.1f%%, CPU %+.1f%%, %+.1f allocs, %s vs %s per call", pct(own.Latency.P50, direct.Latency.P50),
				pct(own.CPUPerOp, direct.CPUPerOp), own.AllocsPerOp-direct.AllocsPerOp, bytesStr(own.BytesPerOp), bytesStr(direct.BytesPerOp)),
			Reported: true,
		})
	}
	if hook, direct := r.find(ScenarioHookHTTP, nameHook, 0), r.find(ScenarioHookHTTP, nameDirect, 0); hook != nil && direct != nil {
		d := pct(hook.Latency.P50, direct.Latency.P50)
		extra := hook.AllocsPerOp - direct.AllocsPerOp
		out = append(out, Target{
			Goal: ScenarioHookHTTP + ": p50 within 3% and 15 allocs of go-sdk direct",
			Got:  fmt.Sprintf("p50 %+.1f%%, %+.1f allocs", d, extra),
			Met:  d <= 3 && extra <= 15,
		})
	}
	hook, worker, direct := r.find(ScenarioWait, nameHook, 16), r.find(ScenarioWait, nameWorker, 16), r.find(ScenarioWait, nameDirect, 16)
	if hook != nil && worker != nil && direct != nil {
		x, of := hook.OpsPerSec/worker.OpsPerSec, 100*hook.OpsPerSec/direct.OpsPerSec
		out = append(out, Target{
			Goal: "20 ms tool, 16 callers: ≥ 12x the one-worker model, ≥ 95% of go-sdk direct",
			Got:  fmt.Sprintf("%.1fx, %.0f%%", x, of),
			Met:  x >= 12 && of >= 95,
		})
	}
	for _, name := range []string{"toolbox: text + thinking chunk", "toolbox: unknown tool name"} {
		if row := r.find(ScenarioToolboxPass, name, 0); row != nil {
			out = append(out, Target{
				Goal: fmt.Sprintf("pass-through, %d × %d tools (%s): p50 < 100 ns, 0 allocs", ToolboxServers, ToolboxTools, name),
				Got:  fmt.Sprintf("%s, %s allocs", Dur(row.Latency.P50), num(row.AllocsPerOp)),
				Met:  row.Latency.P50 < 100*time.Nanosecond && row.AllocsPerOp < 0.01,
			})
		}
	}
	if tb, p := r.find(ScenarioToolboxHook, SubjectToolboxHook, 0), r.find(ScenarioToolboxHook, nameHook, 0); tb != nil && p != nil {
		d := pct(tb.Latency.P50, p.Latency.P50)
		out = append(out, Target{
			Goal: "hook call through a toolbox: p50 within 3% of one plugin",
			Got:  fmt.Sprintf("p50 %+.1f%%, %+.1f allocs", d, tb.AllocsPerOp-p.AllocsPerOp),
			Met:  d <= 3,
		})
	}
	if ten, one := r.find(ScenarioToolboxOpen, SubjectToolboxOpen10, 0), r.find(ScenarioToolboxOpen, SubjectToolboxOpen1, 0); ten != nil && one != nil {
		x := float64(ten.Latency.P50) / float64(one.Latency.P50)
		got := fmt.Sprintf("%.2fx (%s vs %s)", x, Dur(ten.Latency.P50), Dur(one.Latency.P50))
		if floor := r.find(ScenarioToolboxOpen, SubjectPluginsConnect10, 0); floor != nil {
			got += fmt.Sprintf("; 10 plugins in parallel, no toolbox: %s", Dur(floor.Latency.P50))
		}
		out = append(out, Target{
			Goal: fmt.Sprintf("open %d stdio servers: p50 at most 2x one", ToolboxServers),
			Got:  got,
			Met:  x <= 2,
		})
	}
	if g, p := r.find(ScenarioGridHook, SubjectGridHook, 0), r.find(ScenarioGridHook, nameHook, 0); g != nil && p != nil {
		added := g.Latency.P50 - p.Latency.P50
		got := fmt.Sprintf("+%s (%s vs %s)", Dur(added), Dur(g.Latency.P50), Dur(p.Latency.P50))
		if echo := r.find(ScenarioGridHook, SubjectRemoteEcho, 0); echo != nil {
			got += fmt.Sprintf("; a bare remote Ask round trip: %s", Dur(echo.Latency.P50))
		}
		out = append(out, Target{
			Goal: "hook call through a grain on another member: p50 at most 150 µs over a local plugin",
			Got:  got,
			Met:  added <= 150*time.Microsecond,
		})
	}
	if one, many := r.find(ScenarioGridWait, SubjectGridHook, 1), r.find(ScenarioGridWait, SubjectGridHook, 16); one != nil && many != nil {
		x := many.OpsPerSec / one.OpsPerSec
		out = append(out, Target{
			Goal: "20 ms tool through a grain, 16 callers: at least 12x one caller",
			Got:  fmt.Sprintf("%.1fx (%.0f vs %.0f calls/s)", x, many.OpsPerSec, one.OpsPerSec),
			Met:  x >= 12,
		})
	}
	if t, ok := r.turnTarget(); ok {
		out = append(out, t)
	}
	out = append(out, r.lazyTargets()...)
	out = append(out, r.outageTargets()...)
	out = append(out, r.taskTargets()...)
	out = append(out, r.toolSearchTargets()...)
	return append(out, r.idleTargets()...)
}

// idleTargets are the idle connections' goals: over stdio at most 50 KiB,
// and at most go-sdk direct's bytes and goroutines + 10%.
func (r *Report) idleTargets() []Target {
	var out []Target
	for _, sc := range []string{ScenarioIdleHTTP, ScenarioIdleStdio} {
		row := r.find(sc, SubjectPluginOwnSystem, 0)
		if row == nil || row.Idle == nil {
			continue
		}
		got := fmt.Sprintf("%s and %.1f goroutines per connection", bytesStr(row.Idle.HeapPerConn), row.Idle.GoroutinesPerConn)
		d := r.find(sc, nameDirect, 0)
		if d != nil && d.Idle != nil {
			got += fmt.Sprintf(" (go-sdk direct: %s, %.1f)", bytesStr(d.Idle.HeapPerConn), d.Idle.GoroutinesPerConn)
		}
		t := Target{Goal: "memory per idle connection, " + strings.TrimPrefix(sc, "connect + idle, "), Got: got, Reported: true}
		if sc != ScenarioIdleStdio {
			out = append(out, t)
			continue
		}
		t.Goal += ": at most 50 KiB"
		t.Met, t.Reported = row.Idle.HeapPerConn <= 50<<10, false
		out = append(out, t)
		if d != nil && d.Idle != nil {
			out = append(out, Target{
				Goal: "idle stdio connection: at most go-sdk direct's bytes and goroutines + 10%",
				Got:  got,
				Met:  row.Idle.HeapPerConn <= 1.1*d.Idle.HeapPerConn && row.Idle.GoroutinesPerConn <= 1.1*d.Idle.GoroutinesPerConn,
			})
		}
	}
	return out
}

// note is the last column: each row against its reference.
func (r *Report) note(row *Row) string {
	switch row.Scenario {
	case ScenarioPassThrough:
		return ""
	case ScenarioHookStdio, ScenarioHookHTTP:
		direct, raw := r.find(row.Scenario, nameDirect, 0), r.find(row.Scenario, nameRaw, 0)
		switch {
		case row.Subject == SubjectPluginTraced && r.find(row.Scenario, nameHook, 0) != nil:
			hook := r.find(row.Scenario, nameHook, 0)
			return fmt.Sprintf("p50 %+.1f%%, CPU %+.1f%%, %+.1f allocs vs plugin hook (tracing off)",
				pct(row.Latency.P50, hook.Latency.P50), pct(row.CPUPerOp, hook.CPUPerOp), row.AllocsPerOp-hook.AllocsPerOp)
		case (row.Subject == nameHook || row.Subject == SubjectPluginUnsupervised || row.Subject == SubjectStdioConn) && direct != nil:
			return fmt.Sprintf("p50 %+.1f%%, p99 %+.1f%%, CPU %+.1f%%, %+.1f allocs vs go-sdk direct",
				pct(row.Latency.P50, direct.Latency.P50), pct(row.Latency.P99, direct.Latency.P99),
				pct(row.CPUPerOp, direct.CPUPerOp), row.AllocsPerOp-direct.AllocsPerOp)
		case row.Subject == nameDirect && raw != nil:
			return fmt.Sprintf("p50 %.1fx the raw floor", float64(row.Latency.P50)/float64(raw.Latency.P50))
		case (row.Subject == SubjectReaderFloor || row.Subject == SubjectReaderGoSDK) && r.find(row.Scenario, nameHook, 0) != nil:
			hook := r.find(row.Scenario, nameHook, 0)
			return fmt.Sprintf("one goroutine reads the pipe; plugin hook p50 %.2fx this floor", float64(hook.Latency.P50)/float64(row.Latency.P50))
		case row.Subject == nameRaw:
			return "physical floor"
		}
	case ScenarioInstant, ScenarioWait:
		worker, direct := r.find(row.Scenario, nameWorker, row.Callers), r.find(row.Scenario, nameDirect, row.Callers)
		if row.Subject == nameHook && worker != nil && direct != nil {
			return fmt.Sprintf("%.1fx one-worker, %.0f%% of go-sdk direct, CPU/op %+.0f%%",
				row.OpsPerSec/worker.OpsPerSec, 100*row.OpsPerSec/direct.OpsPerSec, pct(row.CPUPerOp, direct.CPUPerOp))
		}
	case ScenarioIdleStdio, ScenarioIdleHTTP:
		if row.Idle != nil {
			return fmt.Sprintf("idle: %s and %.1f goroutines per connection", bytesStr(row.Idle.HeapPerConn), row.Idle.GoroutinesPerConn)
		}
	case ScenarioResourceRead: // resources.go
		return r.resourceReadNote(row)
	case ScenarioHookLegacy: // legacy.go
		return r.legacyNote(row)
	case ScenarioPipeLimitHTTP: // pipe_http.go
		return r.pipeLimitHTTPNote(row)
	case ScenarioToolboxHook:
		if p := r.find(row.Scenario, nameHook, 0); row.Subject == SubjectToolboxHook && p != nil {
			return fmt.Sprintf("p50 %+.1f%%, p99 %+.1f%%, CPU %+.1f%%, %+.1f allocs vs plugin hook",
				pct(row.Latency.P50, p.Latency.P50), pct(row.Latency.P99, p.Latency.P99),
				pct(row.CPUPerOp, p.CPUPerOp), row.AllocsPerOp-p.AllocsPerOp)
		}
	case ScenarioGridHook:
		if p := r.find(row.Scenario, nameHook, 0); row.Subject == SubjectGridHook && p != nil {
			return fmt.Sprintf("p50 +%s, CPU %+.1f%%, %+.1f allocs vs plugin hook (local)",
				Dur(row.Latency.P50-p.Latency.P50), pct(row.CPUPerOp, p.CPUPerOp), row.AllocsPerOp-p.AllocsPerOp)
		}
	case ScenarioGridWait:
		if one := r.find(row.Scenario, SubjectGridHook, 1); row.Callers > 1 && one != nil {
			return fmt.Sprintf("%.1fx one caller", row.OpsPerSec/one.OpsPerSec)
		}
	case ScenarioToolboxOpen:
		if one := r.find(row.Scenario, SubjectToolboxOpen1, 0); row.Subject != SubjectToolboxOpen1 && one != nil {
			return fmt.Sprintf("%.2fx the toolbox of 1 server", float64(row.Latency.P50)/float64(one.Latency.P50))
		}
	case ScenarioTurn:
		return r.turnNote(row)
	case ScenarioTask:
		return r.taskNote(row)
	case ScenarioOutageHTTP, ScenarioOutageStdio:
		return outageNote(row)
	case ScenarioWide:
		if direct := r.find(row.Scenario, nameDirect, 0); row.Subject == "plugin" && direct != nil {
			return fmt.Sprintf("p50 %+.1f%%, CPU %+.1f%% vs go-sdk direct", pct(row.Latency.P50, direct.Latency.P50), pct(row.CPUPerOp, direct.CPUPerOp))
		}
	}
	return ""
}

// Markdown writes the table, then the targets.
func (r *Report) Markdown(w io.Writer) {
	fmt.Fprintf(w, "| scenario | subject | callers | p50 | p90 | p99 | max | CPU/op | allocs/op | bytes/op | calls/s | vs reference |\n")
	fmt.Fprintf(w, "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
	for i := range r.Rows {
		row := &r.Rows[i]
		callers, rate := "", ""
		if row.Callers > 0 {
			callers, rate = fmt.Sprint(row.Callers), fmt.Sprintf("%.0f", row.OpsPerSec)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			row.Scenario, row.Subject, callers, Dur(row.Latency.P50), Dur(row.Latency.P90), Dur(row.Latency.P99), Dur(row.Latency.Max),
			Dur(row.CPUPerOp), num(row.AllocsPerOp), bytesStr(row.BytesPerOp), rate, r.note(row))
	}
	if r.ToolSearch != nil {
		fmt.Fprintln(w)
		r.ToolSearch.Markdown(w)
	}
	fmt.Fprintf(w, "\nTargets (reported, not asserted):\n\n")
	for _, t := range r.Targets() {
		mark := "met"
		switch {
		case t.Reported:
			mark = "reported"
		case !t.Met:
			mark = "MISSED"
		}
		fmt.Fprintf(w, "- %s: %s (%s)\n", t.Goal, t.Got, mark)
	}
	fmt.Fprintf(w, "\nMachine: %s; load average %s. %s, took %s.\n", r.Machine, r.Load,
		r.Date.UTC().Format("2006-01-02 15:04 UTC"), r.Elapsed.Round(time.Second))
	if r.Command != "" {
		fmt.Fprintf(w, "Command: `%s`\n", r.Command)
	}
}

// pct is how much larger a is than b, in percent.
func pct(a, b time.Duration) float64 {
	if b == 0 {
		return math.NaN()
	}
	return 100 * (float64(a) - float64(b)) / float64(b)
}

// Dur formats d with three significant digits.
func Dur(d time.Duration) string {
	f := float64(d)
	switch {
	case d == 0:
		return "–"
	case d < time.Microsecond:
		return fmt.Sprintf("%.0f ns", f)
	case d < time.Millisecond:
		return sig3(f/1e3) + " µs"
	case d < time.Second:
		return sig3(f/1e6) + " ms"
	default:
		return sig3(f/1e9) + " s"
	}
}

func sig3(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func num(v float64) string {
	if v >= 100 || v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func bytesStr(v float64) string {
	switch {
	case math.Abs(v) >= 1<<20:
		return sig3(v/(1<<20)) + " MiB"
	case math.Abs(v) >= 1<<10:
		return sig3(v/(1<<10)) + " KiB"
	default:
		return fmt.Sprintf("%.0f B", v)
	}
}

// directCallTargets are the goals of tools/call on a path of our own: the
// stdio hook call with direct tools/call ahead of go-sdk direct and of
// mcp-go's client on p50, p99 and CPU per call, at most 16 KiB per call,
// and at 16 callers at least mcp-go's throughput.
func (r *Report) directCallTargets() []Target {
	var out []Target
	d, gosdk, mg := r.find(ScenarioHookStdio, SubjectPluginDirect, 0), r.find(ScenarioHookStdio, nameDirect, 0), r.find(ScenarioHookStdio, SubjectMCPGo, 0)
	if d != nil && gosdk != nil && mg != nil {
		ratio := func(a, b time.Duration) float64 { return float64(a) / float64(b) }
		out = append(out, Target{
			Goal: ScenarioHookStdio + ", direct tools/call: p50, p99 and CPU per call below go-sdk direct and mcp-go's client",
			Got: fmt.Sprintf("p50 %.2fx / %.2fx, p99 %.2fx / %.2fx, CPU %.2fx / %.2fx (of go-sdk / of mcp-go)",
				ratio(d.Latency.P50, gosdk.Latency.P50), ratio(d.Latency.P50, mg.Latency.P50),
				ratio(d.Latency.P99, gosdk.Latency.P99), ratio(d.Latency.P99, mg.Latency.P99),
				ratio(d.CPUPerOp, gosdk.CPUPerOp), ratio(d.CPUPerOp, mg.CPUPerOp)),
			Met: d.Latency.P50 < gosdk.Latency.P50 && d.Latency.P50 < mg.Latency.P50 &&
				d.Latency.P99 < gosdk.Latency.P99 && d.Latency.P99 < mg.Latency.P99 &&
				d.CPUPerOp < gosdk.CPUPerOp && d.CPUPerOp < mg.CPUPerOp,
		})
		out = append(out, Target{
			Goal: ScenarioHookStdio + ", direct tools/call: at most 16 KiB per call",
			Got:  fmt.Sprintf("%s (go-sdk direct %s, mcp-go %s)", bytesStr(d.BytesPerOp), bytesStr(gosdk.BytesPerOp), bytesStr(mg.BytesPerOp)),
			Met:  d.BytesPerOp <= 16<<10,
		})
	}
	if d, mg := r.find(ScenarioInstant, SubjectPluginDirect, 16), r.find(ScenarioInstant, SubjectMCPGo, 16); d != nil && mg != nil {
		out = append(out, Target{
			Goal: ScenarioInstant + ", 16 callers, direct tools/call: at least mcp-go's calls/s",
			Got:  fmt.Sprintf("%.2fx (%.0f vs %.0f calls/s)", d.OpsPerSec/mg.OpsPerSec, d.OpsPerSec, mg.OpsPerSec),
			Met:  d.OpsPerSec >= mg.OpsPerSec,
		})
	}
	return out
}
