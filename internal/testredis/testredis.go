// Package testredis runs a real redis-server (Debian's package, installed by
// `make test`) for tests and benchmarks: on a free loopback port, with its
// data in a directory of its own, never the system's service.
package testredis

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Server is one redis-server process. Stop and Start may be called again
// to simulate a crash and a restart: the port and the data (append-only
// file, fsync on every write) are kept.
type Server struct {
	// Addr is host:port of the server.
	Addr string
	// TLSAddr is host:port of its TLS port (NewTLS); "" without.
	TLSAddr string
	dir     string
	bin     string
	// extra are more arguments of redis-server (NewWith).
	extra []string
	cmd   *exec.Cmd
	done  chan struct{}
}

// Binary returns the path of redis-server, or an error saying how to
// install it.
func Binary() (string, error) {
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return "", fmt.Errorf("redis-server is not on PATH (make test installs Debian's package; or run: apt-get install -y redis-server): %w", err)
	}
	return p, nil
}

// Start runs redis-server on a free loopback port with dir as its working
// directory, and waits until it answers PING.
func Start(dir string) (*Server, error) { return StartWith(dir) }

// StartWith is Start with more arguments for redis-server (e.g.
// "--maxmemory-policy", "allkeys-lru").
func StartWith(dir string, extra ...string) (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	var last error
	for range 5 { // the port picked may be taken before redis binds it
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: dir, bin: bin, extra: extra}
		if last = s.Start(); last == nil {
			return s, nil
		}
	}
	return nil, last
}

// New starts a server for t in a temporary directory and stops it when the
// test ends. Under -short the test is skipped; without redis-server too,
// loudly.
func New(t testing.TB) *Server {
	t.Helper()
	return NewWith(t)
}

// skipWithout skips t under -short, and loudly where no redis-server can
// be found.
func skipWithout(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs redis-server: heavy integration test, skipped under -short")
	}
	if _, err := Binary(); err != nil {
		fmt.Fprintf(os.Stderr, "\n*** SKIP %s: %v ***\n\n", t.Name(), err)
		t.Skip(err)
	}
}

// NewWith is New with more arguments for redis-server.
func NewWith(t testing.TB, extra ...string) *Server {
	t.Helper()
	skipWithout(t)
	s, err := StartWith(t.TempDir(), extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// URL returns the redis:// URL of database db.
func (s *Server) URL(db int) string { return fmt.Sprintf("redis://%s/%d", s.Addr, db) }

// Start (re)starts the process on s.Addr and waits until it answers.
func (s *Server) Start() error {
	_, port, _ := net.SplitHostPort(s.Addr)
	args := append([]string{
		"--bind", "127.0.0.1", "--port", port, "--dir", s.dir,
		"--save", "", "--appendonly", "yes", "--appendfsync", "always",
		"--protected-mode", "no", "--daemonize", "no", "--logfile", filepath.Join(s.dir, "redis.log")}, s.extra...)
	s.cmd = exec.Command(s.bin, args...)
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	s.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { cmd.Wait(); close(done) }(s.cmd, s.done)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if s.ping() == nil {
			return nil
		}
		select {
		case <-s.done:
			log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
			return fmt.Errorf("redis-server on %s exited at start:\n%s", s.Addr, tail(string(log)))
		case <-time.After(20 * time.Millisecond):
		}
	}
	s.Stop()
	return errors.New("redis-server did not answer PING within 10s")
}

// PID returns the running redis-server's process id, or 0 when it is
// stopped.
func (s *Server) PID() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Stop kills the process (SIGKILL, like a crash) and waits until it is gone.
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Kill() // already gone: nothing to do
	<-s.done
	s.cmd = nil
}

// Command runs one command with redis-cli-like inline syntax over a fresh
// connection and returns the reply's first line (e.g. "+PONG", ":42").
func (s *Server) Command(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", s.Addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	conn.SetDeadline(deadline)
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := conn.Write([]byte(b.String())); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	return strings.TrimRight(line, "\r\n"), err
}

func (s *Server) ping() error {
	reply, err := s.Command("PING")
	if err == nil && reply != "+PONG" {
		err = fmt.Errorf("PING answered %q", reply)
	}
	return err
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-10):], "\n")
}
