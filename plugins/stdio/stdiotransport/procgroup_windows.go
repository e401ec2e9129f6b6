//go:build windows

package stdiotransport

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sysProcAttr starts the server in a console process group of its own
// (its id is the server's pid), so term can send Ctrl-Break to it and its
// children without reaching the plugin.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// group is the server's process tree, held in a Job object created with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: every process the server starts joins
// it, and when the plugin exits — however it exits — the system closes the
// handle and ends them all. job is 0 when the object could not be made;
// then only the server process itself can be ended.
type group struct {
	pid uint32
	p   *os.Process
	job windows.Handle
}

// newGroup puts p in a new kill-on-close Job object. A child p started in
// the instant before this runs stays outside it; npx and the like start
// theirs much later.
func newGroup(p *os.Process) group {
	g := group{pid: uint32(p.Pid), p: p}
	job, err := newKillOnCloseJob()
	if err != nil {
		return g
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, g.pid)
	if err != nil {
		windows.CloseHandle(job)
		return g
	}
	defer windows.CloseHandle(h)
	if windows.AssignProcessToJobObject(job, h) != nil {
		windows.CloseHandle(job)
		return g
	}
	g.job = job
	return g
}

// newKillOnCloseJob creates an anonymous Job object that kills its
// processes when its last handle closes.
func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("set kill-on-close: %w", err)
	}
	return job, nil
}

// term sends Ctrl-Break to the server's console process group, which a
// console program treats as SIGTERM-like (Go's os.Interrupt, Node's
// SIGBREAK). It reaches nothing when the plugin has no console; kill
// follows after the grace period.
func (g group) term() { _ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, g.pid) }

// kill ends every process of the job, or the server alone without one.
func (g group) kill() {
	if g.job == 0 {
		_ = g.p.Kill()
		return
	}
	_ = windows.TerminateJobObject(g.job, 1)
}

// alive reports whether a process of the job still runs.
func (g group) alive() bool {
	if g.job == 0 {
		return false // the server itself is watched by Wait
	}
	var info basicAccounting
	err := windows.QueryInformationJobObject(g.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return err == nil && info.ActiveProcesses > 0
}

// lookPath finds command as cmd.exe would in the PATH of the server's env
// (not the plugin's), trying PATHEXT's extensions: "npx" is npx.cmd.
func lookPath(command string, env []string) (string, error) {
	if strings.ContainsAny(command, `/\`) || filepath.VolumeName(command) != "" {
		if p := searchPathExt(filepath.Base(command), []string{filepath.Dir(command)}, envValueFold(env, "PATHEXT"), isFile); p != "" {
			return p, nil
		}
		return "", fmt.Errorf("executable %q: %w", command, errors.New("no such file"))
	}
	path := envValueFold(env, "PATH")
	var dirs []string
	for _, d := range filepath.SplitList(path) {
		if filepath.IsAbs(d) {
			dirs = append(dirs, d)
		}
	}
	if p := searchPathExt(command, dirs, envValueFold(env, "PATHEXT"), isFile); p != "" {
		return p, nil
	}
	return "", notFound(command, path)
}

// isFile reports whether name is a regular file.
func isFile(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}

// basicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, which
// x/sys/windows does not declare.
type basicAccounting struct {
	TotalUserTime, TotalKernelTime                       int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime   int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses uint32
	TotalTerminatedProcesses                             uint32
}
