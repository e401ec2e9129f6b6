//go:build unix

package pluginapi

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// handoffTimeout bounds how long a plugin waits for the host to collect the
// pipes it offered.
const handoffTimeout = 10 * time.Second

// offerPipes runs in the plugin: it listens on a fresh Unix socket in a 0700
// temp dir, calls announce with the socket path (the host is told through the
// Opened frame), and passes stdin and stdout to the first connection with
// SCM_RIGHTS. The plugin's own copies are closed afterwards.
func offerPipes(ctx context.Context, stdin, stdout *os.File, announce func(path string) error) error {
	defer stdin.Close()
	defer stdout.Close()
	dir, err := os.MkdirTemp("", "plughost-pipes-")
	if err != nil {
		return fmt.Errorf("create handoff dir: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "pipes.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return fmt.Errorf("listen for handoff: %w", err)
	}
	defer ln.Close()
	if err := announce(path); err != nil {
		return err
	}
	deadline := time.Now().Add(handoffTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = ln.SetDeadline(deadline)
	c, err := ln.AcceptUnix()
	if err != nil {
		return fmt.Errorf("host did not collect the pipes: %w", err)
	}
	defer c.Close()
	rights := syscall.UnixRights(int(stdin.Fd()), int(stdout.Fd()))
	if _, _, err := c.WriteMsgUnix([]byte{'p'}, rights, nil); err != nil {
		return fmt.Errorf("send pipes: %w", err)
	}
	return nil
}

// collectPipes runs in the host: it connects to the plugin's socket and
// receives the server's stdin and stdout.
func collectPipes(ctx context.Context, path string) (stdin, stdout *os.File, err error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to handoff socket: %w", err)
	}
	defer conn.Close()
	uc := conn.(*net.UnixConn)
	if dl, ok := ctx.Deadline(); ok {
		_ = uc.SetDeadline(dl)
	}
	buf, oob := make([]byte, 1), make([]byte, syscall.CmsgSpace(2*4))
	_, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, nil, fmt.Errorf("receive pipes: %w", err)
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, nil, fmt.Errorf("receive pipes: malformed control message (%v)", err)
	}
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 2 {
		for _, fd := range fds {
			syscall.Close(fd)
		}
		return nil, nil, fmt.Errorf("receive pipes: want 2 descriptors, got %d (%v)", len(fds), err)
	}
	for _, fd := range fds {
		syscall.CloseOnExec(fd)
		_ = syscall.SetNonblock(fd, true) // let the runtime poller (and deadlines) manage them
	}
	return os.NewFile(uintptr(fds[0]), "server-stdin"), os.NewFile(uintptr(fds[1]), "server-stdout"), nil
}
