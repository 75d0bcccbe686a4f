package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cuca-go/mcpconnector/benchmarks"
	"github.com/cuca-go/mcpconnector/internal/testserver"
)

func main() {
	testserver.RunBenchIfChild()

	quick := flag.Bool("quick", false, "run every scenario briefly (a smoke test, not a measurement)")
	out := flag.String("out", filepath.Join("benchmarks", "out"), "directory for report.md and report.svg")
	svg := flag.String("svg", "", "also write the chart to this file (e.g. benchmarks/report.svg)")
	flag.Parse()

	if err := run(*quick, *out, *svg); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func run(quick bool, outDir, svgPath string) error {
	cfg := benchmarks.FullConfig()
	command := "go run ./benchmarks/report"
	if quick {
		cfg = benchmarks.QuickConfig()
		command += " -quick"
	}
	cfg.Progress = os.Stderr
	rep := &benchmarks.Report{Command: command, Machine: benchmarks.Machine(), Date: time.Now()}
	load0 := benchmarks.LoadAverage()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	rows, err := benchmarks.Run(ctx, cfg)
	if err != nil {
		return err
	}
	rep.Rows, rep.Elapsed = rows, time.Since(rep.Date)
	rep.Load = load0 + " before, " + benchmarks.LoadAverage() + " after (1 min)"

	var md, chart bytes.Buffer
	rep.Markdown(&md)
	if err := rep.SVG(&chart); err != nil {
		return err
	}
	os.Stdout.Write(md.Bytes())
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	files := map[string][]byte{
		filepath.Join(outDir, "report.md"):  md.Bytes(),
		filepath.Join(outDir, "report.svg"): chart.Bytes(),
	}
	if svgPath != "" {
		files[svgPath] = chart.Bytes()
	}
	var wrote []string
	for path, b := range files {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
		wrote = append(wrote, path)
	}
	fmt.Fprintln(os.Stderr, "report: wrote", strings.Join(wrote, ", "))
	return nil
}
