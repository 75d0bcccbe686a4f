package transport

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"

	"golang.org/x/sys/unix"
)

// awaitExit blocks until the child has exited, leaving it unreaped: as a
// zombie it still holds its pid, which is its group's id, so signalling the
// group afterwards cannot reach a stranger that was given the number anew.
// [childProcess.reap] collects it.
func awaitExit(cmd *exec.Cmd) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return nil
		}
	}
}

// awaitReaps reports whether awaitExit reaps the child itself.
const awaitReaps = false

// groupAlive reports whether a process of the group cmd led still runs.
// Zombies do not count: an orphan's zombie waits for an init that reaps, and
// a container's init may never do so.
func groupAlive(cmd *exec.Cmd) bool {
	if groupGone(cmd) {
		return false
	}
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	pgid := strconv.Itoa(cmd.Process.Pid)
	for _, e := range dir {
		if c := e.Name()[0]; c < '0' || c > '9' {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// "pid (comm) state ppid pgrp ...": comm may hold anything, so
		// the fields are counted from its closing parenthesis.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) > 2 && string(f[2]) == pgid && f[0][0] != 'Z' && f[0][0] != 'X' {
			return true
		}
	}
	return false
}
