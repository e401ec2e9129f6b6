package pluginapi

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	"github.com/plughost/plughost/pluginapi/internal/pb"
)

// frameSlack is what a relayed message's frame may add to the message.
const frameSlack = 64 << 10

// grpcClient is the host side of a plugin: it implements Transport by calling
// the plugin over gRPC.
type grpcClient struct {
	client pb.TransportClient
}

var _ Transport = (*grpcClient)(nil)

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

// Diagnostics asks the plugin for the diagnostics of the server of
// connection id ("": its most recent connection).
func (c *grpcClient) Diagnostics(ctx context.Context, id string) (Diagnostics, error) {
	r, err := c.client.Diagnostics(ctx, &pb.DiagnosticsRequest{ConnectionId: id})
	if err != nil {
		return Diagnostics{}, fromStatus("diagnostics", err)
	}
	return diagnosticsFromProto(r), nil
}

// Open starts a Connect stream. The stream lives until Close; ctx bounds only
// the opening, and its deadline travels to the plugin in the Open frame.
func (c *grpcClient) Open(ctx context.Context, req OpenRequest) (Conn, error) {
	streamCtx, cancel := context.WithCancel(context.Background())
	limit := req.MessageLimit()
	// The plugin enforces the limit as it reads; the receive limit refuses
	// what a plugin that does not know the limit relays past it (frame
	// overhead allowed), and the codec gathers large messages sent in parts.
	codec := &frameCodec{limit: limit}
	stream, err := c.client.Connect(streamCtx, grpc.MaxCallRecvMsgSize(limit+frameSlack), grpc.ForceCodecV2(codec))
	if err != nil {
		cancel()
		return nil, fromStatus("open", err)
	}
	open := &pb.Open{ServerName: req.ServerName, Config: req.Config, WantDirectPipes: req.WantDirectPipes,
		Credentials: req.Credentials != nil, MaxMessageBytes: int64(limit), AcceptParts: true, Spool: spoolToProto(req.Spool)}
	if d, ok := ctx.Deadline(); ok {
		open.DeadlineUnixNano = d.UnixNano()
	}
	if err := stream.Send(&pb.HostFrame{Frame: &pb.HostFrame_Open{Open: open}}); err != nil {
		cancel()
		return nil, fromStatus("open", err)
	}
	// The pump starts now: the plugin may ask for credentials while opening.
	conn := newGRPCConn(streamCtx, stream, cancel, req.Credentials, codec)
	// A cancelled open ends the stream, which the plugin sees as cancellation.
	stop := context.AfterFunc(ctx, cancel)
	opened, err := conn.waitOpened()
	stopped := stop()
	if err != nil {
		conn.abort()
		if ctx.Err() != nil {
			return nil, &Error{Op: "open", Kind: kindOfPlain(ctx.Err()), Err: ctx.Err()}
		}
		return nil, err
	}
	if !stopped {
		conn.abort()
		return nil, &Error{Op: "open", Kind: kindOfPlain(ctx.Err()), Err: ctx.Err()}
	}
	conn.sessionID.Store(opened.GetSessionId())
	conn.id = opened.GetConnectionId()
	if path := opened.GetPipeSocket(); path != "" {
		stdin, stdout, err := collectPipes(ctx, path)
		if err != nil {
			conn.Close()
			return nil, &Error{Op: "open", Kind: KindConnect, Err: err}
		}
		return newPipeConn(conn, stdin, stdout, limit, req.Spool), nil
	}
	return conn, nil
}

// grpcConn is a Conn over one Connect stream. A pump goroutine owns the
// stream's receiving side (gRPC allows one receiver), so Close can always see
// the stream end, whether or not anyone is calling Recv. The pump also hands
// the plugin's credential requests to the answerer.
type grpcConn struct {
	stream    pb.Transport_ConnectClient
	cancel    context.CancelFunc
	sendMu    sync.Mutex // gRPC streams allow one concurrent sender
	sessionID atomic.Value
	id        string          // the plugin's id of the connection ("" from older plugins)
	opened    chan *pb.Opened // the plugin's first frame
	msgs      chan json.RawMessage
	ended     chan struct{} // closed once the stream has ended; endErr says why
	endErr    error
	openErr   error         // the stream's end seen as a failure to open
	closing   chan struct{} // closed by Close: the pump stops delivering
	closeOnce sync.Once
	creds     *credentialAnswerer
	codec     *frameCodec // decodes what stream receives, in the pump
}

var _ Conn = (*grpcConn)(nil)

func newGRPCConn(ctx context.Context, stream pb.Transport_ConnectClient, cancel context.CancelFunc, creds Credentials, codec *frameCodec) *grpcConn {
	c := &grpcConn{
		codec:   codec,
		stream:  stream,
		cancel:  cancel,
		opened:  make(chan *pb.Opened, 1),
		msgs:    make(chan json.RawMessage),
		ended:   make(chan struct{}),
		closing: make(chan struct{}),
	}
	c.creds = &credentialAnswerer{creds: creds, send: c.sendFrame, ctx: ctx}
	c.sessionID.Store("")
	go c.pump()
	return c
}

// pump receives frames until the stream ends, handing messages to Recv.
func (c *grpcConn) pump() {
	defer close(c.ended)
	for {
		f, err := c.stream.Recv()
		if err != nil {
			c.endErr, c.openErr = fromStatus("recv", err), fromStatus("open", err)
			if c.codec != nil && c.codec.err != nil {
				c.endErr = c.codec.err // the frame could not be decoded: say why
			}
			return
		}
		switch fr := f.GetFrame().(type) {
		case *pb.PluginFrame_Opened:
			select {
			case c.opened <- fr.Opened:
			default: // a second Opened is a plugin bug; the first one counts
			}
		case *pb.PluginFrame_Message:
			select {
			case c.msgs <- fr.Message.GetJson():
			case <-c.closing:
			}
		case *pb.PluginFrame_SessionId:
			c.sessionID.Store(fr.SessionId)
		case *pb.PluginFrame_CredentialRequest:
			c.creds.answer(fr.CredentialRequest)
		}
	}
}

// waitOpened waits for the plugin's Opened frame, or the stream's end.
func (c *grpcConn) waitOpened() (*pb.Opened, error) {
	select {
	case o := <-c.opened:
		return o, nil
	case <-c.ended:
		select {
		case o := <-c.opened: // sent just before the stream ended
			return o, nil
		default:
		}
		if c.openErr == nil {
			return nil, Errorf("open", KindInternal, "plugin ended the connection without opening it")
		}
		return nil, c.openErr
	}
}

// abort ends a connection that never opened.
func (c *grpcConn) abort() {
	c.closeOnce.Do(func() { close(c.closing) })
	c.cancel()
	<-c.ended
	c.creds.wait()
}

func (c *grpcConn) sendFrame(f *pb.HostFrame) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	return c.stream.Send(f)
}

func (c *grpcConn) Send(ctx context.Context, msg json.RawMessage) error {
	if err := ctx.Err(); err != nil {
		return &Error{Op: "send", Kind: kindOfPlain(err), Err: err}
	}
	m := &pb.Message{Json: msg}
	if d, ok := ctx.Deadline(); ok {
		m.DeadlineUnixNano = d.UnixNano()
	}
	if err := c.sendFrame(&pb.HostFrame{Frame: &pb.HostFrame_Message{Message: m}}); err != nil {
		// The real reason arrives on the receiving side; Send only reports
		// that the stream is gone.
		return &Error{Op: "send", Kind: KindServerExited, Err: err}
	}
	return nil
}

// Recv returns the next message, or why the connection ended.
func (c *grpcConn) Recv(ctx context.Context) (json.RawMessage, error) {
	select {
	case m := <-c.msgs:
		return m, nil
	case <-c.ended:
		return nil, c.endErr
	case <-c.closing:
		return nil, &Error{Op: "recv", Kind: KindServerExited, Err: errors.New("connection closed")}
	case <-ctx.Done():
		return nil, &Error{Op: "recv", Kind: kindOfPlain(ctx.Err()), Err: ctx.Err()}
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
		close(c.closing)
		c.sendMu.Lock()
		_ = c.stream.CloseSend()
		c.sendMu.Unlock()
		select {
		case <-c.ended:
		case <-time.After(closeGrace):
		}
		c.cancel()
		c.creds.wait()
	})
	return nil
}

func (c *grpcConn) connectionID() string { return c.id }
