package pluginapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/plughost/plughost/pluginapi/internal/pb"
)

// The gRPC shims on their own: grpcClient (host side) talks to grpcServer
// (plugin side) over an in-memory connection, with a fake Transport behind
// the server. No process is started.

// fakeTransport records what reached it and opens fakeConns.
type fakeTransport struct {
	desc        Description
	validateErr error
	openErr     error
	diag        Diagnostics

	mu       sync.Mutex
	validate json.RawMessage
	opened   []OpenRequest
	creds    Credentials // of the last Open
	deadline time.Time   // of the last Open's ctx
	conns    chan *fakeConn
}

func (f *fakeTransport) Describe(context.Context) (Description, error) { return f.desc, nil }

func (f *fakeTransport) Validate(_ context.Context, config json.RawMessage) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.validate = config
	return f.validateErr
}

func (f *fakeTransport) Open(ctx context.Context, req OpenRequest) (Conn, error) {
	f.mu.Lock()
	creds := req.Credentials
	req.Credentials = nil // compared apart: the plugin side gets its own
	f.opened = append(f.opened, req)
	f.creds = creds
	f.deadline, _ = ctx.Deadline()
	openErr := f.openErr // a test may change it while a cancelled Open still runs here
	f.mu.Unlock()
	if openErr != nil {
		return nil, openErr
	}
	c := &fakeConn{toHost: make(chan json.RawMessage, 8), sent: make(chan sentMsg, 8), end: make(chan error, 1),
		closed: make(chan struct{}), session: "sess-1", diag: f.diag}
	f.conns <- c
	return c, nil
}

// sentMsg is one message the host sent, with the deadline it arrived with.
type sentMsg struct {
	msg      json.RawMessage
	deadline time.Time
}

// fakeConn is a server connection: tests push server messages into toHost
// and read what the host sent from sent.
type fakeConn struct {
	toHost chan json.RawMessage
	sent   chan sentMsg
	end    chan error // Recv returns an error sent here: the server ended
	diag   Diagnostics

	mu        sync.Mutex
	session   string
	closed    chan struct{}
	closeOnce sync.Once
}

func (c *fakeConn) Send(ctx context.Context, msg json.RawMessage) error {
	d, _ := ctx.Deadline()
	c.sent <- sentMsg{msg: msg, deadline: d}
	return nil
}

func (c *fakeConn) Recv(ctx context.Context) (json.RawMessage, error) {
	select {
	case m := <-c.toHost:
		return m, nil
	case err := <-c.end:
		return nil, err
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *fakeConn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

func (c *fakeConn) setSession(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.session = s
}

func (c *fakeConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

func (c *fakeConn) Diagnostics() Diagnostics { return c.diag }

// shims connects a grpcClient to a grpcServer serving impl.
func shims(t *testing.T, impl *fakeTransport) *grpcClient {
	t.Helper()
	if impl.conns == nil {
		impl.conns = make(chan *fakeConn, 4)
	}
	ln := bufconn.Listen(1 << 20)
	srv := grpc.NewServer(serverOptions(nil)...)
	pb.RegisterTransportServer(srv, &grpcServer{impl: impl, logger: hclog.NewNullLogger()})
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	cc, err := grpc.NewClient("passthrough:///bufconn", append(dialOptions(),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return ln.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return &grpcClient{client: pb.NewTransportClient(cc)}
}

func TestShimDescribeAndValidate(t *testing.T) {
	impl := &fakeTransport{
		desc:        Description{Name: "fake", Version: "1.2", Features: []string{FeatureDiagnostics}},
		validateErr: &Error{Op: "validate", Kind: KindInvalidConfig, Err: errors.New(`unknown field "urll"`)},
	}
	c := shims(t, impl)
	d, err := c.Describe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(impl.desc, d); diff != "" {
		t.Errorf("Describe (-want +got):\n%s", diff)
	}
	err = c.Validate(t.Context(), json.RawMessage(`{"urll":"x"}`))
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != KindInvalidConfig || pe.Error() != `validate: unknown field "urll"` {
		t.Errorf("Validate = %v; want the plugin's *Error of KindInvalidConfig", err)
	}
	if string(impl.validate) != `{"urll":"x"}` {
		t.Errorf("the plugin validated %s", impl.validate)
	}
	impl.validateErr = nil
	if err := c.Validate(t.Context(), json.RawMessage(`{}`)); err != nil {
		t.Errorf("valid config: %v", err)
	}
}

// Open carries the request and its deadline; messages flow both ways with
// per-message deadlines; a session id change reaches the host; closing ends
// the plugin's connection.
func TestShimConnection(t *testing.T) {
	impl := &fakeTransport{diag: Diagnostics{Stderr: "tail", PID: 42, Warnings: []string{"plain http"}}}
	c := shims(t, impl)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	want := OpenRequest{ServerName: "gh", Config: json.RawMessage(`{"command":"x"}`), MaxMessageBytes: 1 << 20}
	conn, err := c.Open(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	fc := <-impl.conns
	if diff := cmp.Diff([]OpenRequest{want}, impl.opened); diff != "" {
		t.Errorf("Open request (-want +got):\n%s", diff)
	}
	if d, _ := ctx.Deadline(); impl.deadline.IsZero() || impl.deadline.Sub(d).Abs() > time.Millisecond {
		t.Errorf("the plugin's Open deadline %v, want the host's %v", impl.deadline, d)
	}
	if conn.SessionID() != "sess-1" {
		t.Errorf("session id %q", conn.SessionID())
	}

	sendCtx, sendCancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer sendCancel()
	if err := conn.Send(sendCtx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	got := <-fc.sent
	sd, _ := sendCtx.Deadline()
	if string(got.msg) != `{"jsonrpc":"2.0","id":1,"method":"ping"}` || got.deadline.Sub(sd).Abs() > time.Millisecond {
		t.Errorf("the server got %s with deadline %v; want the message with deadline %v", got.msg, got.deadline, sd)
	}

	fc.setSession("sess-2")
	fc.toHost <- json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	msg, err := conn.Recv(ctx)
	if err != nil || string(msg) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("Recv = %s, %v", msg, err)
	}
	if conn.SessionID() != "sess-2" {
		t.Errorf("session id after the change: %q", conn.SessionID())
	}

	d, err := c.Diagnostics(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(impl.diag, d); diff != "" {
		t.Errorf("Diagnostics (-want +got):\n%s", diff)
	}

	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-fc.closed:
	case <-time.After(5 * time.Second):
		t.Fatal("closing the host's side did not close the plugin's connection")
	}
}

// The server's end travels as a typed error; a failed or cancelled open is
// reported with its kind.
func TestShimErrors(t *testing.T) {
	impl := &fakeTransport{}
	c := shims(t, impl)
	conn, err := c.Open(t.Context(), OpenRequest{ServerName: "s"})
	if err != nil {
		t.Fatal(err)
	}
	fc := <-impl.conns
	fc.end <- &Error{Op: "recv", Kind: KindServerExited, Err: errors.New("exit status 3")}
	_, err = conn.Recv(t.Context())
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != KindServerExited || pe.Error() != "recv: exit status 3" {
		t.Errorf("Recv after the server exited = %v; want a *Error of KindServerExited", err)
	}
	conn.Close()

	impl.openErr = &Error{Op: "open", Kind: KindProtocolMismatch, Err: errors.New("GET refused with 405")}
	if _, err := c.Open(t.Context(), OpenRequest{ServerName: "s"}); KindOf(err) != KindProtocolMismatch {
		t.Errorf("failed open = %v (kind %q); want KindProtocolMismatch", err, KindOf(err))
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.Open(ctx, OpenRequest{ServerName: "s"}); KindOf(err) != KindCanceled {
		t.Errorf("open with a cancelled context = %v (kind %q); want KindCanceled", err, KindOf(err))
	}
	sendCtx, sendCancel := context.WithCancel(t.Context())
	impl.mu.Lock()
	impl.openErr = nil
	impl.mu.Unlock()
	conn, err = c.Open(t.Context(), OpenRequest{ServerName: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sendCancel()
	if err := conn.Send(sendCtx, json.RawMessage(`{}`)); KindOf(err) != KindCanceled {
		t.Errorf("send with a cancelled context = %v; want KindCanceled", err)
	}
}

// fakeCreds is the host's side of a server's OAuth login.
type fakeCreds struct {
	mu       sync.Mutex
	rejected []Rejection
}

func (c *fakeCreds) Authorization(context.Context) (Authorization, error) {
	return Authorization{Value: "Bearer first", CacheFor: time.Minute}, nil
}

func (c *fakeCreds) Rejected(_ context.Context, r Rejection) (Authorization, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rejected = append(c.rejected, r)
	if len(c.rejected) > 1 {
		return Authorization{}, &Error{Op: "auth", Kind: KindUnauthorized, Err: errors.New("log in again")}
	}
	return Authorization{Value: "Bearer second"}, nil
}

// A plugin asks the host for credentials over the stream and reports
// refusals; a message over 1 MiB crosses in parts and arrives whole; one
// over the host's limit fails the connection with an error naming it.
func TestShimCredentialsAndLargeMessages(t *testing.T) {
	impl := &fakeTransport{}
	c := shims(t, impl)
	hostCreds := &fakeCreds{}
	conn, err := c.Open(t.Context(), OpenRequest{ServerName: "r", Credentials: hostCreds, MaxMessageBytes: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fc := <-impl.conns
	plugin := impl.creds
	if plugin == nil {
		t.Fatal("the plugin's Open got no credentials")
	}
	a, err := plugin.Authorization(t.Context())
	if err != nil || a.Value != "Bearer first" || a.CacheFor != time.Minute {
		t.Errorf("Authorization through the stream = %+v, %v", a, err)
	}
	a, err = plugin.Rejected(t.Context(), Rejection{Status: 401, WWWAuthenticate: []string{`Bearer error="invalid_token"`}, Sent: "Bearer first"})
	if err != nil || a.Value != "Bearer second" {
		t.Errorf("Rejected through the stream = %+v, %v", a, err)
	}
	if _, err := plugin.Rejected(t.Context(), Rejection{Status: 403}); KindOf(err) != KindUnauthorized {
		t.Errorf("a refusal the host cannot fix = %v; want KindUnauthorized", err)
	}
	hostCreds.mu.Lock()
	if len(hostCreds.rejected) != 2 || hostCreds.rejected[0].Status != 401 || hostCreds.rejected[0].Sent != "Bearer first" {
		t.Errorf("the host saw refusals %+v", hostCreds.rejected)
	}
	hostCreds.mu.Unlock()

	big := json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("x", 3<<20) + `"}}`)
	fc.toHost <- big
	msg, err := conn.Recv(t.Context())
	if err != nil || !bytes.Equal(msg, big) {
		t.Fatalf("a %d-byte message arrived as %d bytes, %v", len(big), len(msg), err)
	}
	fc.toHost <- json.RawMessage(`"` + strings.Repeat("y", 5<<20) + `"`)
	if _, err := conn.Recv(t.Context()); err == nil || !strings.Contains(err.Error(), "4 MiB") {
		t.Errorf("a message over the 4 MiB limit: %v; want an error naming the limit", err)
	}
}
