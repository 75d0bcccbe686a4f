//go:build !linux && !windows

package transport

import (
	"os/exec"
	"time"
)

// awaitExit reaps the child: without waitid's WNOWAIT it cannot learn of
// the exit otherwise.
func awaitExit(cmd *exec.Cmd) error { return cmd.Wait() }

// awaitReaps reports whether awaitExit reaps the child itself.
const awaitReaps = true

// groupAlive reports whether a process of the group cmd led may still run.
func groupAlive(cmd *exec.Cmd) bool { return !groupGone(cmd) }

// exitOf would say how the child exited; without waitid's WNOWAIT it
// cannot look without reaping it, so it says nothing.
func exitOf(*exec.Cmd, time.Duration) string { return "" }
