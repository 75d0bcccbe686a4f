//go:build unix

package transport

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// inOwnGroup starts cmd as the leader of a process group of its own, which
// everything it starts joins unless it leaves on purpose: Close signals
// the group, so that a server run through a wrapper (sh -c, npx, uvx) ends
// with whatever the wrapper started.
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to every process of the group cmd leads.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	return syscall.Kill(-cmd.Process.Pid, sig)
}

// groupGone reports that no process of the group cmd leads is left, not
// even a zombie.
func groupGone(cmd *exec.Cmd) bool {
	return syscall.Kill(-cmd.Process.Pid, 0) == syscall.ESRCH
}

// signalName names sig as "SIGKILL".
func signalName(sig syscall.Signal) string {
	if n := unix.SignalName(sig); n != "" {
		return n
	}
	return sig.String()
}

// started does nothing more: the group was made as the child started.
func started(*exec.Cmd) error { return nil }

// endGroup does nothing: a process group needs no releasing.
func endGroup(*exec.Cmd) {}
