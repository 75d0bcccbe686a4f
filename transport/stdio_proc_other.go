//go:build !unix && !windows

package transport

import (
	"os/exec"
	"syscall"
)

// Without process groups only the child itself can be ended.

func inOwnGroup(*exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if sig == syscall.SIGKILL {
		return cmd.Process.Kill()
	}
	return nil
}

func groupGone(*exec.Cmd) bool { return true }

// signalName names sig.
func signalName(sig syscall.Signal) string { return sig.String() }

func started(*exec.Cmd) error { return nil }

func endGroup(*exec.Cmd) {}
