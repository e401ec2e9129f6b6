//go:build unix

package cluster

import (
	"os"
	"syscall"
)

// groupAttr puts a replica in a process group of its own.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup sends SIGKILL to p's whole process group.
func killGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }

// terminate asks p to stop (SIGTERM).
func terminate(p *os.Process) { _ = p.Signal(syscall.SIGTERM) }
