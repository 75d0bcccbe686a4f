package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cuca-go/mcpconnector/examples/demoserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// lifecycleOptions applies -manifests, -lazy and -pin (or -accept): the toolbox options
// they give, after making the servers lazy for -lazy.
func lifecycleOptions(cfg config, servers *mcpconfig.Config) []toolbox.Option {
	var opts []toolbox.Option
	if cfg.manifestDir != "" {
		opts = append(opts, toolbox.WithManifestDir(cfg.manifestDir))
	}
	if cfg.pin || cfg.accept != "" {
		opts = append(opts, toolbox.WithPinnedTools())
	}
	for _, s := range servers.Servers {
		s.Lazy = s.Lazy || cfg.lazy
	}
	return opts
}

// setChanged, for -changed, sets the variable that the bundled mcp.json
// passes to its stdio server, which then changes its add tool's
// description. The variable's name is in the entry either way and only its
// value changes, so the entry's manifest and pins still apply to it.
func setChanged(changed bool) (unset func(), err error) {
	if !changed {
		return func() {}, nil
	}
	if err := os.Setenv(demoserver.ChangedEnv, "1"); err != nil {
		return nil, err
	}
	return func() { _ = os.Unsetenv(demoserver.ChangedEnv) }, nil
}

// printAfter says which servers the run started: with -lazy, only those
// whose tools were called.
func printAfter(out io.Writer, servers *mcpconfig.Config, tb *toolbox.Toolbox) {
	status := tb.Status()
	var parts []string
	for _, name := range tb.Servers() {
		parts = append(parts, fmt.Sprintf("%s %s", name, status[name].State))
	}
	fmt.Fprintf(out, "\nAfter the run: %s\n", strings.Join(parts, ", "))
}
