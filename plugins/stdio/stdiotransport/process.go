package stdiotransport

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/pluginapi"
)

// stderrTail is how much of the server's stderr a Conn keeps.
const stderrTail = 64 << 10

// start runs the server with fresh pipes for its stdin, stdout and stderr and
// returns the Conn that owns it. A line of its stdout over the message limit
// is spooled when it is a result within the spool's limit, and otherwise
// ends the connection (see readLimits).
func start(log hclog.Logger, tm timing, path string, cfg Config, env []string, lazyRead bool, lim readLimits) (*Conn, error) {
	var p pipes
	if err := p.open(); err != nil {
		return nil, pluginapi.Errorf("open", pluginapi.KindInternal, "create pipes: %w", err)
	}
	if env == nil {
		env = []string{} // nil would make exec inherit the plugin's environment
	}
	cmd := &exec.Cmd{
		Path:        path,
		Args:        append([]string{cfg.Command}, cfg.Args...),
		Env:         env,
		Stdin:       p.childIn,
		Stdout:      p.childOut,
		Stderr:      p.childErr,
		SysProcAttr: sysProcAttr(),
	}
	err := cmd.Start()
	p.closeChildEnds()
	if err != nil {
		p.closeOurEnds()
		return nil, pluginapi.Errorf("open", pluginapi.KindConnect, "start %q: %w", cfg.Command, err)
	}
	c := newConn(log, tm, cmd, p, lazyRead, lim)
	return c, nil
}

// pipes are the three pipes between the plugin and the server.
type pipes struct {
	childIn, stdin   *os.File // server reads childIn, we write stdin
	stdout, childOut *os.File // server writes childOut, we read stdout
	stderr, childErr *os.File // server writes childErr, we read stderr
}

// open creates the pipes. Ours support deadlines (os.Pipe registers them
// with the runtime poller), which Send and the exit drain rely on.
func (p *pipes) open() error {
	var err error
	if p.childIn, p.stdin, err = os.Pipe(); err != nil {
		return err
	}
	if p.stdout, p.childOut, err = os.Pipe(); err != nil {
		p.closeAll()
		return err
	}
	if p.stderr, p.childErr, err = os.Pipe(); err != nil {
		p.closeAll()
		return err
	}
	return nil
}

// closeChildEnds closes the server's ends in this process, so that EOF on
// stdout and stderr means the server side is gone.
func (p *pipes) closeChildEnds() { closeFiles(p.childIn, p.childOut, p.childErr) }

// closeOurEnds closes the plugin's ends.
func (p *pipes) closeOurEnds() { closeFiles(p.stdin, p.stdout, p.stderr) }

// closeAll closes every pipe end that was created.
func (p *pipes) closeAll() {
	p.closeChildEnds()
	p.closeOurEnds()
}

// closeFiles closes the non-nil files.
func closeFiles(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

// envValue returns the value of key in env ("KEY=value" entries), the last
// one winning.
func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// exitStatus describes how a process ended ("exit status 1", "signal: killed").
func exitStatus(state *os.ProcessState, err error) string {
	if state != nil {
		return state.String()
	}
	if err != nil {
		return err.Error()
	}
	return "unknown"
}

// waitFor reports whether ch is closed within d.
func waitFor(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// notFound explains why command was not found in the server's PATH.
func notFound(command, path string) error {
	if path == "" {
		return fmt.Errorf("executable %q not found: PATH is empty in the server's environment "+
			"(set env.PATH or give the command's absolute path)", command)
	}
	return fmt.Errorf("executable %q not found in PATH (PATH=%s): install it, "+
		"give its absolute path, or set env.PATH", command, path)
}
