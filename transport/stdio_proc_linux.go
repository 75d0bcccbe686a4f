package transport

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
	"unsafe"

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

// exitOf says how the child exited ("exit status 3", "killed by signal
// SIGKILL"), waiting up to d for it; "" when it still runs after d or was
// reaped already. The child stays unreaped for Close.
func exitOf(cmd *exec.Cmd, d time.Duration) string {
	deadline := time.Now().Add(d)
	for delay := 100 * time.Microsecond; ; delay = min(2*delay, 10*time.Millisecond) {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT|unix.WNOHANG, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return ""
		}
		if pid, code, status := siginfoChild(&info); pid != 0 {
			switch code {
			case cldExited:
				return fmt.Sprintf("exit status %d", status)
			case cldKilled, cldDumped:
				return "killed by signal " + signalName(syscall.Signal(status))
			}
			return ""
		}
		if !time.Now().Before(deadline) {
			return ""
		}
		time.Sleep(delay)
	}
}

// si_code values of a child's exit (CLD_EXITED, CLD_KILLED, CLD_DUMPED).
const (
	cldExited = 1
	cldKilled = 2
	cldDumped = 3
)

// siginfoChild reads si_pid, si_code and si_status of a SIGCHLD siginfo,
// whose union x/sys/unix keeps as raw bytes: si_pid, si_uid and si_status
// follow the first 16 bytes on 64-bit Linux (after 12 on 32-bit).
func siginfoChild(info *unix.Siginfo) (pid int32, code int32, status int32) {
	b := (*[unsafe.Sizeof(*info)]byte)(unsafe.Pointer(info))
	off := 16
	if unsafe.Sizeof(uintptr(0)) == 4 {
		off = 12
	}
	pid = int32(binary.NativeEndian.Uint32(b[off:]))
	status = int32(binary.NativeEndian.Uint32(b[off+8:]))
	return pid, info.Code, status
}
