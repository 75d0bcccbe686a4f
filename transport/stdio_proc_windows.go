package transport

import (
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows a child's process tree is a Job Object: the child is put in a
// job of its own as soon as it has started, and every process it starts
// joins it (unless it breaks away on purpose). The job is made to kill
// what it holds when its last handle closes (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE),
// so nothing the server started outlives its Close, nor this process.
// Windows has no SIGTERM: the grace a server has is the closing of its
// stdin; "SIGKILL" terminates the whole job.

// jobs holds the job of each child started, by its command.
var jobs sync.Map // *exec.Cmd → windows.Handle

// inOwnGroup does nothing before the start: the job is made by started.
func inOwnGroup(*exec.Cmd) {}

// started puts the child cmd in a job of its own. A process the child
// starts in the moment before (a wrapper that forks at once) is not in the
// job; the child is killed if the job cannot be had.
func started(cmd *exec.Cmd) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return killStarted(cmd, fmt.Errorf("creating a job object: %w", err))
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return killStarted(cmd, fmt.Errorf("setting up a job object: %w", err))
	}
	// While cmd.Process is not waited for, its handle keeps the pid from
	// naming another process.
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err == nil {
		err = windows.AssignProcessToJobObject(job, h)
		_ = windows.CloseHandle(h)
	}
	if err != nil {
		_ = windows.CloseHandle(job)
		return killStarted(cmd, fmt.Errorf("putting the child in a job object: %w", err))
	}
	jobs.Store(cmd, job)
	return nil
}

// killStarted ends a child that could not be put in a job, and says why.
func killStarted(cmd *exec.Cmd, err error) error {
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return err
}

// endGroup closes the child's job, which kills what is left in it.
func endGroup(cmd *exec.Cmd) {
	if job, ok := jobs.LoadAndDelete(cmd); ok {
		_ = windows.CloseHandle(job.(windows.Handle))
	}
}

// signalGroup terminates every process of the child's job for SIGKILL;
// other signals have no Windows counterpart and do nothing.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if sig != syscall.SIGKILL {
		return nil
	}
	if job, ok := jobs.Load(cmd); ok {
		return windows.TerminateJobObject(job.(windows.Handle), 1)
	}
	return cmd.Process.Kill()
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime, ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses, TotalTerminatedProcesses     uint32
}

// groupGone reports that no process of the child's job runs.
func groupGone(cmd *exec.Cmd) bool {
	job, ok := jobs.Load(cmd)
	if !ok {
		return true
	}
	var acct jobAccounting
	if err := windows.QueryInformationJobObject(job.(windows.Handle), windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&acct)), uint32(unsafe.Sizeof(acct)), nil); err != nil {
		return false
	}
	return acct.ActiveProcesses == 0
}

// groupAlive reports whether a process of the child's job still runs.
func groupAlive(cmd *exec.Cmd) bool { return !groupGone(cmd) }

// awaitExit reaps the child.
func awaitExit(cmd *exec.Cmd) error { return cmd.Wait() }

// awaitReaps reports whether awaitExit reaps the child itself.
const awaitReaps = true

// exitOf says how the child exited ("exit status 3"), waiting up to d for
// it; "" when it still runs after d. It looks through a handle of its own,
// leaving the child for Close to reap.
func exitOf(cmd *exec.Cmd, d time.Duration) string {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(cmd.Process.Pid))
	if err != nil {
		return ""
	}
	defer func() { _ = windows.CloseHandle(h) }()
	ms := uint32(min(d.Milliseconds(), int64(windows.INFINITE-1)))
	if ev, err := windows.WaitForSingleObject(h, ms); err != nil || ev != windows.WAIT_OBJECT_0 {
		return ""
	}
	var code uint32
	if windows.GetExitCodeProcess(h, &code) != nil {
		return ""
	}
	return fmt.Sprintf("exit status %d", code)
}

// signalName names sig.
func signalName(sig syscall.Signal) string { return sig.String() }
