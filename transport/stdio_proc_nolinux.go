//go:build !linux

package transport

import "os/exec"

// awaitExit reaps the child: without waitid's WNOWAIT it cannot learn of
// the exit otherwise.
func awaitExit(cmd *exec.Cmd) error { return cmd.Wait() }

// awaitReaps reports whether awaitExit reaps the child itself.
const awaitReaps = true

// groupAlive reports whether a process of the group cmd led may still run.
func groupAlive(cmd *exec.Cmd) bool { return !groupGone(cmd) }
