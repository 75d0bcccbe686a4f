package interop

import (
	"fmt"
	"os"
)

// childArg is the first argument that puts a re-executed test binary into
// server mode: "<binary> interop-server <sdk> <record file>".
const childArg = "interop-server"

// runIfChild serves MCP on stdio and exits when this process is such a
// child; otherwise it returns at once.
func runIfChild() {
	if len(os.Args) < 4 || os.Args[1] != childArg {
		return
	}
	serve, ok := stdioServers[os.Args[2]]
	if !ok {
		fmt.Fprintln(os.Stderr, "interop: no such server SDK:", os.Args[2])
		os.Exit(2)
	}
	if err := serve(os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "interop server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// stdioServers serves one SDK's server on this process's stdio, recording
// to the file named by its argument.
var stdioServers = map[string]func(record string) error{}
