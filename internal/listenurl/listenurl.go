// Package listenurl starts a server process that announces its address as
// "listening <url>" on its first stdout line (the test server's -serve
// mode, the bench's HTTP servers) and returns that URL.
package listenurl

import (
	"bufio"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Start starts cmd — a server that prints "listening <url>" as its
// first line on stdout, as the test server's -serve mode and the bench's
// HTTP servers do — and returns that URL and a stop function that kills and
// reaps the process. It fails, with the process stopped, when the first line
// is anything else or does not come within timeout.
func Start(cmd *exec.Cmd, timeout time.Duration) (url string, stop func(), err error) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	stop = func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		lines <- strings.TrimSpace(line)
	}()
	select {
	case line := <-lines:
		url, ok := strings.CutPrefix(line, "listening ")
		if !ok {
			stop()
			return "", nil, fmt.Errorf("%s said %q, want \"listening <url>\" as its first line", cmd.Path, line)
		}
		return url, stop, nil
	case <-time.After(timeout):
		stop()
		return "", nil, fmt.Errorf("%s did not say where it listens within %s", cmd.Path, timeout)
	}
}
