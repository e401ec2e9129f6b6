package deploy_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/testwait"
)

// fakeDNS answers A queries for "plughost." with the addresses it is set
// to, as Docker's DNS does for a service's replicas. Safe for concurrent
// use.
type fakeDNS struct {
	mu    sync.Mutex
	addrs []netip.Addr
}

func (d *fakeDNS) set(addrs ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.addrs = nil
	for _, a := range addrs {
		d.addrs = append(d.addrs, netip.MustParseAddr(a))
	}
}

// serve answers queries on pc until it is closed.
func (d *fakeDNS) serve(pc net.PacketConn) {
	buf := make([]byte, 512)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		if resp := d.answer(buf[:n]); resp != nil {
			_, _ = pc.WriteTo(resp, from)
		}
	}
}

// answer builds the response to one query (nil for a malformed one).
func (d *fakeDNS) answer(q []byte) []byte {
	if len(q) < 12 || binary.BigEndian.Uint16(q[4:6]) != 1 {
		return nil
	}
	end, name := 12, []string{}
	for end < len(q) && q[end] != 0 {
		l := int(q[end])
		if end+1+l > len(q) {
			return nil
		}
		name = append(name, strings.ToLower(string(q[end+1:end+1+l])))
		end += 1 + l
	}
	if end+5 > len(q) {
		return nil
	}
	question := q[12 : end+5]
	qtype := binary.BigEndian.Uint16(q[end+1 : end+3])
	resp := append([]byte{}, q[:2]...)
	var answers [][]byte
	rcode := uint16(0)
	switch {
	case strings.Join(name, ".") != "plughost":
		rcode = 3 // NXDOMAIN
	case qtype == 1: // A
		d.mu.Lock()
		for _, a := range d.addrs {
			rr := []byte{0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 1, 0, 4}
			answers = append(answers, append(rr, a.AsSlice()...))
		}
		d.mu.Unlock()
	}
	resp = binary.BigEndian.AppendUint16(resp, 0x8180|rcode)
	resp = binary.BigEndian.AppendUint16(resp, 1)
	resp = binary.BigEndian.AppendUint16(resp, uint16(len(answers)))
	resp = append(resp, 0, 0, 0, 0)
	resp = append(resp, question...)
	for _, rr := range answers {
		resp = append(resp, rr...)
	}
	return resp
}

// replica is an HTTP server on addr:8765 standing in for a plughost
// replica: it answers with its name, the Host it got and the method.
func replica(t *testing.T, name, addr string) {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(addr, "8765"))
	if err != nil {
		t.Skipf("SKIP: cannot listen on %s:8765 for a stand-in replica: %v", addr, err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s %s", name, r.Host, r.Method)
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
}

// nginx really balances with deploy/nginx.conf: it passes the client's
// Host, follows the replicas' name as DNS changes (a new replica gets
// requests without restarting nginx), and retries a POST on another
// replica when a replica refuses the connection. DNS is a stand-in for
// Docker's at 127.0.0.11, the replicas stand-ins on 127.0.0.2 and
// 127.0.0.3 (all loopback); only the listen port is changed.
func TestNginxBalancesReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("runs nginx: skipped under -short")
	}
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		t.Skip("SKIP: nginx is not installed (apt-get install nginx-light, or make testdeps)")
	}
	pc, err := net.ListenPacket("udp", "127.0.0.11:53")
	if err != nil {
		t.Skipf("SKIP: cannot serve a stand-in for Docker's DNS on 127.0.0.11:53 (needs root and a free port): %v", err)
	}
	defer pc.Close()
	dns := &fakeDNS{}
	dns.set("127.0.0.2")
	go dns.serve(pc)
	replica(t, "A", "127.0.0.2")
	replica(t, "B", "127.0.0.3")

	port := freePort(t)
	raw, err := os.ReadFile("nginx.conf")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "listen 8765;") {
		t.Fatal(`deploy/nginx.conf has no "listen 8765;" for this test to move to a free port`)
	}
	dir := t.TempDir()
	confd := filepath.Join(dir, "default.conf")
	if err := os.WriteFile(confd, []byte(strings.Replace(string(raw), "listen 8765;", fmt.Sprintf("listen 127.0.0.1:%d;", port), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(dir, "main.conf")
	conf := fmt.Sprintf("daemon off;\nuser root;\npid %s;\nerror_log stderr;\nevents {}\nhttp {\n  access_log off;\n"+
		"  client_body_temp_path %s;\n  proxy_temp_path %s;\n  include %s;\n}\n",
		filepath.Join(dir, "nginx.pid"), filepath.Join(dir, "body"), filepath.Join(dir, "proxy"), confd)
	if err := os.WriteFile(main, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, nginx, "-p", dir, "-c", main)
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("nginx's log:\n%s", log.String())
		}
	}()

	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	send := func(method string) string {
		req, _ := http.NewRequest(method, base+"/mcp", strings.NewReader(`{}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return fmt.Sprintf("%d %s", resp.StatusCode, b)
	}
	host := fmt.Sprintf("127.0.0.1:%d", port)
	testwait.Eventually(t, 30*time.Second, "nginx to pass a request to replica A", func() bool { return strings.HasPrefix(send("GET"), "200 A ") })
	if got, want := send("GET"), "200 A "+host+" GET"; got != want {
		t.Errorf("through nginx: %q, want %q (the client's Host passed on)", got, want)
	}

	dns.set("127.0.0.3") // A replaced by B, as in a rollout: nginx is not restarted
	testwait.Eventually(t, 30*time.Second, "nginx to follow DNS to replica B", func() bool { return strings.HasPrefix(send("GET"), "200 B ") })

	dns.set("127.0.0.4", "127.0.0.3") // a replica that refuses connections, and B
	for i := range 20 {
		if got, want := send("POST"), "200 B "+host+" POST"; got != want {
			t.Fatalf("POST %d with a replica refusing connections: %q, want %q (retried on B)", i, got, want)
		}
	}
}

// freePort returns a loopback TCP port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
