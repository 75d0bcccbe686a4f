// Command report runs the mcpconnector benchmark suite (package
// benchmarks) once, side by side, prints one markdown table with the targets
// it is read against, and writes the table and an SVG chart to a directory,
// benchmarks/out by default.
//
//	go run ./benchmarks/report                            # full run, about 75 seconds
//	go run ./benchmarks/report -svg benchmarks/report.svg # also refresh the committed chart
//	go run ./benchmarks/report -quick                     # every scenario briefly: a smoke test
//
// The servers run as child processes of this program, which re-executes
// itself in server mode. Progress goes to stderr.
package main
