package pluginapi

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plughost/plughost/pluginapi/internal/pb"
)

// grpcClient is the host side of a plugin: it implements Transport by calling
// the plugin over gRPC.
type grpcClient struct {
	client pb.TransportClient
}

func (c *grpcClient) Describe(ctx context.Context) (Description, error) {
	r, err := c.client.Describe(ctx, &pb.DescribeRequest{})
	if err != nil {
		return Description{}, fromStatus("describe", err)
	}
	return Description{Name: r.GetName(), Version: r.GetVersion(), Features: r.GetFeatures()}, nil
}

func (c *grpcClient) Validate(ctx context.Context, config json.RawMessage) error {
	_, err := c.client.Validate(ctx, &pb.ValidateRequest{Config: config})
	return fromStatus("validate", err)
}

// Diagnostics asks the plugin for its server's diagnostics.
func (c *grpcClient) Diagnostics(ctx context.Context) (Diagnostics, error) {
	r, err := c.client.Diagnostics(ctx, &pb.DiagnosticsRequest{})
	if err != nil {
		return Diagnostics{}, fromStatus("diagnostics", err)
	}
	return diagnosticsFromProto(r), nil
}

// Open starts a Connect stream. The stream lives until Close; ctx bounds only
// the opening, and its deadline travels to the plugin in the Open frame.
func (c *grpcClient) Open(ctx context.Context, req OpenRequest) (Conn, error) {
	streamCtx, cancel := context.WithCancel(context.Background())
	stream, err := c.client.Connect(streamCtx)
	if err != nil {
		cancel()
		return nil, fromStatus("open", err)
	}
	open := &pb.Open{ServerName: req.ServerName, Config: req.Config, WantDirectPipes: req.WantDirectPipes}
	if d, ok := ctx.Deadline(); ok {
		open.DeadlineUnixNano = d.UnixNano()
	}
	if err := stream.Send(&pb.HostFrame{Frame: &pb.HostFrame_Open{Open: open}}); err != nil {
		cancel()
		return nil, fromStatus("open", err)
	}
	// A cancelled open ends the stream, which the plugin sees as cancellation.
	stop := context.AfterFunc(ctx, cancel)
	first, err := stream.Recv()
	stopped := stop()
	if err != nil {
		cancel()
		if ctx.Err() != nil {
			return nil, &Error{Op: "open", Kind: kindOfPlain(ctx.Err()), Err: ctx.Err()}
		}
		return nil, fromStatus("open", err)
	}
	if !stopped {
		cancel()
		return nil, &Error{Op: "open", Kind: kindOfPlain(ctx.Err()), Err: ctx.Err()}
	}
	opened := first.GetOpened()
	if opened == nil {
		cancel()
		return nil, Errorf("open", KindInternal, "plugin answered Open with an unexpected frame")
	}
	conn := &grpcConn{stream: stream, cancel: cancel, ended: make(chan struct{})}
	conn.sessionID.Store(opened.GetSessionId())
	if path := opened.GetPipeSocket(); path != "" {
		stdin, stdout, err := collectPipes(ctx, path)
		if err != nil {
			conn.Close()
			return nil, &Error{Op: "open", Kind: KindConnect, Err: err}
		}
		return newPipeConn(conn, stdin, stdout), nil
	}
	return conn, nil
}

// grpcConn is a Conn over one Connect stream.
type grpcConn struct {
	stream    pb.Transport_ConnectClient
	cancel    context.CancelFunc
	sendMu    sync.Mutex // gRPC streams allow one concurrent sender
	sessionID atomic.Value
	ended     chan struct{} // closed once Recv has seen the stream end
	endOnce   sync.Once
	closeOnce sync.Once
}

func (c *grpcConn) Send(ctx context.Context, msg json.RawMessage) error {
	if err := ctx.Err(); err != nil {
		return &Error{Op: "send", Kind: kindOfPlain(err), Err: err}
	}
	m := &pb.Message{Json: msg}
	if d, ok := ctx.Deadline(); ok {
		m.DeadlineUnixNano = d.UnixNano()
	}
	c.sendMu.Lock()
	err := c.stream.Send(&pb.HostFrame{Frame: &pb.HostFrame_Message{Message: m}})
	c.sendMu.Unlock()
	if err != nil {
		// The real reason arrives on the receiving side; Send only reports
		// that the stream is gone.
		return &Error{Op: "send", Kind: KindServerExited, Err: err}
	}
	return nil
}

// Recv returns the next message. It is meant for a single reader goroutine;
// ctx is checked between messages, and Close unblocks a waiting Recv.
func (c *grpcConn) Recv(ctx context.Context) (json.RawMessage, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, &Error{Op: "recv", Kind: kindOfPlain(err), Err: err}
		}
		f, err := c.stream.Recv()
		if err != nil {
			c.endOnce.Do(func() { close(c.ended) })
			return nil, fromStatus("recv", err)
		}
		switch fr := f.GetFrame().(type) {
		case *pb.PluginFrame_Message:
			return fr.Message.GetJson(), nil
		case *pb.PluginFrame_SessionId:
			c.sessionID.Store(fr.SessionId)
		}
	}
}

func (c *grpcConn) SessionID() string {
	s, _ := c.sessionID.Load().(string)
	return s
}

// closeGrace is how long Close waits for the plugin to shut the server down
// before abandoning the stream.
const closeGrace = 5 * time.Second

// Close tells the plugin to close the connection (which stops the server) and
// waits for it to confirm by ending the stream, up to closeGrace.
func (c *grpcConn) Close() error {
	c.closeOnce.Do(func() {
		c.sendMu.Lock()
		_ = c.stream.CloseSend()
		c.sendMu.Unlock()
		select {
		case <-c.ended:
		case <-time.After(closeGrace):
		}
		c.cancel()
	})
	return nil
}
