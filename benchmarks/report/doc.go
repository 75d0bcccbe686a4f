// Command report runs the mcpconnector benchmark suite (package
// benchmarks) once, side by side, prints one markdown table with the targets
// it is read against, and writes the table and an SVG chart to a directory,
// benchmarks/out by default. A full run also writes the table, under a
// header naming the command, to docs/benchmarks-table.md: the one place the
// module's measured figures live.
//
//	go run ./benchmarks/report                            # full run, about 7 minutes (3 of them outages, mostly waiting)
//	go run ./benchmarks/report -svg benchmarks/report.svg # also refresh the committed chart
//	go run ./benchmarks/report -quick                     # every scenario briefly: a smoke test, no docs page
//	go run ./benchmarks/report -doc -                     # a full run that leaves the docs page alone
//
// The servers run as child processes of this program, which re-executes
// itself in server mode. Progress goes to stderr.
package main
