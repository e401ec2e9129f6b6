//go:build windows

package cluster

import (
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// groupAttr starts a replica in a console process group of its own, so
// terminate can send it Ctrl-Break alone.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// killGroup ends p; its plugins notice their host is gone and stop their
// servers (their Job objects end the rest).
func killGroup(p *os.Process) { _ = p.Kill() }

// terminate sends Ctrl-Break to p's console process group, the Windows
// counterpart of SIGTERM for a console program.
func terminate(p *os.Process) {
	_ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(p.Pid))
}
