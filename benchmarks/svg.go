package benchmarks

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"time"
)

// bar is one horizontal bar of a panel; whisker, if not zero, is a second
// value drawn as a tick (p99 beside p50).
type bar struct {
	label, value   string
	subject        string
	v, whisker     float64
	gapBeforeGroup bool
}

// panel is a horizontal bar chart on a log scale.
type panel struct {
	title string
	bars  []bar
	// tick formats the value of a decade grid line.
	tick func(float64) string
}

var subjectColor = map[string]string{
	nameHook:                  "#1f77b4",
	SubjectPluginUnsupervised: "#6baed6",
	SubjectPluginTraced:       "#9467bd",
	SubjectPluginOwnSystem:    "#1f77b4",
	SubjectPluginSharedSystem: "#6baed6",
	nameDirect:                "#2ca02c",
	nameRaw:                   "#8c8c8c",
	nameWorker:                "#d62728",
}

// SVG writes the report's chart: hook call latency beside its floors,
// throughput against the one-worker model and go-sdk direct, and the idle
// footprint per connection.
func (r *Report) SVG(w io.Writer) error {
	var panels []panel
	lat := panel{title: "Hook call latency: p50 (bar), p99 (tick); log scale",
		tick: func(v float64) string { return Dur(time.Duration(v)) }}
	for _, sc := range []string{ScenarioHookStdio, ScenarioHookHTTP} {
		first := true
		for _, row := range r.Rows {
			if row.Scenario != sc {
				continue
			}
			lat.bars = append(lat.bars, bar{
				label:   strings.TrimPrefix(sc, "hook call, ") + " · " + row.Subject,
				value:   Dur(row.Latency.P50) + " / " + Dur(row.Latency.P99),
				subject: row.Subject, v: float64(row.Latency.P50), whisker: float64(row.Latency.P99),
				gapBeforeGroup: first && len(lat.bars) > 0,
			})
			first = false
		}
	}
	panels = append(panels, lat)
	for _, sc := range []string{ScenarioWait, ScenarioInstant} {
		p := panel{title: "Throughput, " + strings.TrimPrefix(sc, "throughput, ") + ": calls/s; log scale",
			tick: func(v float64) string { return fmt.Sprintf("%g/s", v) }}
		last := -1
		for _, row := range r.Rows {
			if row.Scenario != sc {
				continue
			}
			p.bars = append(p.bars, bar{
				label: fmt.Sprintf("%d %s · %s", row.Callers, plural(row.Callers, "caller"), row.Subject), value: fmt.Sprintf("%.0f/s", row.OpsPerSec),
				subject: row.Subject, v: row.OpsPerSec, gapBeforeGroup: last >= 0 && last != row.Callers,
			})
			last = row.Callers
		}
		panels = append(panels, p)
	}
	idle := panel{title: "Heap + stacks per idle connection; log scale", tick: siBytes}
	for _, sc := range []string{ScenarioIdleStdio, ScenarioIdleHTTP} {
		first := true
		for _, row := range r.Rows {
			if row.Scenario != sc || row.Idle == nil || row.Idle.HeapPerConn <= 0 {
				continue
			}
			idle.bars = append(idle.bars, bar{
				label: strings.TrimPrefix(sc, "connect + idle, ") + " · " + row.Subject, value: bytesStr(row.Idle.HeapPerConn),
				subject: row.Subject, v: row.Idle.HeapPerConn, gapBeforeGroup: first && len(idle.bars) > 0,
			})
			first = false
		}
	}
	panels = append(panels, idle)
	return writeSVG(w, "mcpconnector benchmarks — "+r.Date.UTC().Format("2006-01-02")+" — "+r.Machine, panels)
}

func writeSVG(w io.Writer, title string, panels []panel) error {
	const (
		width   = 980
		labelW  = 300
		valueW  = 150
		barH    = 16
		rowH    = 20
		gap     = 8
		titleH  = 28
		panelGp = 18
		axisH   = 12
	)
	plotW := float64(width - labelW - valueW - 20)
	height := 40
	for _, p := range panels {
		height += titleH + panelGp + axisH + len(p.bars)*rowH
		for _, b := range p.bars {
			if b.gapBeforeGroup {
				height += gap
			}
		}
	}
	var s strings.Builder
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&s, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&s, `<text x="10" y="22" font-size="14" font-weight="bold">%s</text>`+"\n", html.EscapeString(title))
	y := 40
	for _, p := range panels {
		y += panelGp
		fmt.Fprintf(&s, `<text x="10" y="%d" font-weight="bold">%s</text>`+"\n", y+12, html.EscapeString(p.title))
		y += titleH
		lo, hi := math.Inf(1), 0.0
		for _, b := range p.bars {
			lo, hi = math.Min(lo, b.v), math.Max(hi, math.Max(b.v, b.whisker))
		}
		if len(p.bars) == 0 || lo <= 0 {
			continue
		}
		lo = math.Pow(10, math.Floor(math.Log10(lo)))
		hi = math.Pow(10, math.Ceil(math.Log10(hi)))
		if hi <= lo {
			hi = lo * 10
		}
		x := func(v float64) float64 { return float64(labelW) + plotW*math.Log10(v/lo)/math.Log10(hi/lo) }
		top := y
		for _, b := range p.bars {
			if b.gapBeforeGroup {
				y += gap
			}
			color := subjectColor[b.subject]
			if color == "" {
				color = "#9467bd"
			}
			fmt.Fprintf(&s, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelW-8, y+12, html.EscapeString(b.label))
			bw := math.Max(1, x(b.v)-float64(labelW))
			fmt.Fprintf(&s, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", labelW, y, bw, barH, color)
			end := x(b.v)
			if b.whisker > b.v {
				wx := x(b.whisker)
				fmt.Fprintf(&s, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>`+"\n", end, y+barH/2, wx, y+barH/2, color)
				fmt.Fprintf(&s, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="2"/>`+"\n", wx, y+2, wx, y+barH-2, color)
				end = wx
			}
			fmt.Fprintf(&s, `<text x="%.1f" y="%d">%s</text>`+"\n", end+6, y+12, html.EscapeString(b.value))
			y += rowH
		}
		// decade grid lines, labelled below the panel
		for d := lo; d <= hi*1.0001; d *= 10 {
			fmt.Fprintf(&s, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ccc" stroke-dasharray="2,3"/>`+"\n", x(d), top-4, x(d), y)
			fmt.Fprintf(&s, `<text x="%.1f" y="%d" text-anchor="middle" font-size="10" fill="#666">%s</text>`+"\n", x(d), y+10, html.EscapeString(p.tick(d)))
		}
		y += axisH
	}
	s.WriteString("</svg>\n")
	_, err := io.WriteString(w, s.String())
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// siBytes labels a decade of bytes: 10 kB, 100 kB, 1 MB.
func siBytes(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%g MB", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%g kB", v/1e3)
	default:
		return fmt.Sprintf("%g B", v)
	}
}
