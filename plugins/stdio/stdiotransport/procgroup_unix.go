//go:build unix

package stdiotransport

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// sysProcAttr puts the server in a new process group whose id is its pid,
// so the whole group (npx and the node it spawns) can be signalled at once.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// group is the server's process group.
type group struct{ pgid int }

// newGroup returns the group led by pid.
func newGroup(p *os.Process) group { return group{pgid: p.Pid} }

// term sends SIGTERM to every process of the group.
func (g group) term() { syscall.Kill(-g.pgid, syscall.SIGTERM) }

// kill sends SIGKILL to every process of the group.
func (g group) kill() { syscall.Kill(-g.pgid, syscall.SIGKILL) }

// lookPath finds command the way the server's own shell would: a name
// without '/' is searched in the PATH of env (not the plugin's). Relative
// PATH entries are skipped, as os/exec refuses them too.
func lookPath(command string, env []string) (string, error) {
	if strings.Contains(command, "/") {
		if err := checkExecutable(command); err != nil {
			return "", fmt.Errorf("executable %q: %w", command, err)
		}
		return command, nil
	}
	path := envValue(env, "PATH")
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		name := filepath.Join(dir, command)
		if checkExecutable(name) == nil {
			return name, nil
		}
	}
	return "", notFound(command, path)
}

// checkExecutable reports why name is not an executable file, if it is not.
func checkExecutable(name string) error {
	fi, err := os.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file")
	case err != nil:
		return err
	case fi.IsDir():
		return errors.New("is a directory")
	case fi.Mode()&0o111 == 0:
		return errors.New("is not executable (chmod +x it)")
	}
	return nil
}
