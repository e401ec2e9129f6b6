//go:build !unix && !windows

package stdiotransport

import (
	"os"
	"os/exec"
	"syscall"
)

// sysProcAttr returns nil: there are no process groups to set up here.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// group is the server process alone: without process groups its children
// cannot be reached.
type group struct{ p *os.Process }

// newGroup returns the "group" of p.
func newGroup(p *os.Process) group { return group{p: p} }

// term kills the process: there is no SIGTERM to send.
func (g group) term() { g.p.Kill() }

// kill kills the process.
func (g group) kill() { g.p.Kill() }

// alive reports false: the process itself is watched by Wait.
func (g group) alive() bool { return false }

// lookPath searches the plugin's own PATH (Windows resolution also needs
// PATHEXT and the current directory rules os/exec implements).
func lookPath(command string, env []string) (string, error) {
	p, err := exec.LookPath(command)
	if err != nil {
		return "", notFound(command, envValue(env, "PATH"))
	}
	return p, nil
}
