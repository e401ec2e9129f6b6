package pluginapi

import (
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/pluginapi/internal/pb"
)

// grpcServer exposes a Transport over gRPC inside a plugin process.
type grpcServer struct {
	pb.UnimplementedTransportServer
	impl   Transport
	logger hclog.Logger

	mu     sync.Mutex
	last   DiagnosticsProvider // the current or most recent connection
	live   map[string]Conn     // connections open now, by id, for closeAll and Diagnostics
	ended  []endedConn         // the last endedKept connections that ended, oldest first
	lastID uint64              // numbers the connections
}

// endedConn is what Diagnostics still answers about a connection that
// ended: the host asks for its server's last words after it hears of the
// end.
type endedConn struct {
	id    string
	diags Diagnostics
}

// endedKept is how many ended connections' diagnostics a plugin keeps.
const endedKept = 32

// track records conn as open and returns its id.
func (s *grpcServer) track(conn Conn) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live == nil {
		s.live = map[string]Conn{}
	}
	s.lastID++
	id := strconv.FormatUint(s.lastID, 10)
	s.live[id] = conn
	return id
}

// untrack records that the connection id has ended, keeping its final
// diagnostics for a while.
func (s *grpcServer) untrack(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	conn := s.live[id]
	delete(s.live, id)
	dp, ok := conn.(DiagnosticsProvider)
	if !ok {
		return
	}
	if len(s.ended) == endedKept {
		s.ended = append(s.ended[:0], s.ended[1:]...)
	}
	s.ended = append(s.ended, endedConn{id: id, diags: dp.Diagnostics()})
}

// diagnosticsOf returns the diagnostics of connection id, open or among
// the last ended ones.
func (s *grpcServer) diagnosticsOf(id string) (Diagnostics, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if dp, ok := s.live[id].(DiagnosticsProvider); ok {
		return dp.Diagnostics(), true
	}
	for _, e := range s.ended {
		if e.id == id {
			return e.diags, true
		}
	}
	return Diagnostics{}, false
}

// closeAll closes every open connection at once (for stdio, each ends its
// server's process group) and returns when all have closed.
func (s *grpcServer) closeAll() {
	s.mu.Lock()
	conns := make([]Conn, 0, len(s.live))
	for _, c := range s.live {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { _ = c.Close() })
	}
	wg.Wait()
}

func (s *grpcServer) Describe(ctx context.Context, _ *pb.DescribeRequest) (*pb.DescribeResponse, error) {
	d, err := s.impl.Describe(ctx)
	if err != nil {
		return nil, toStatus("describe", err)
	}
	return &pb.DescribeResponse{Name: d.Name, Version: d.Version, Features: d.Features}, nil
}

func (s *grpcServer) Validate(ctx context.Context, req *pb.ValidateRequest) (*pb.ValidateResponse, error) {
	if err := s.impl.Validate(ctx, req.GetConfig()); err != nil {
		return nil, toStatus("validate", err)
	}
	return &pb.ValidateResponse{}, nil
}

// Diagnostics answers about the connection the request names, or without
// a name about the most recent connection (a process serving one).
func (s *grpcServer) Diagnostics(_ context.Context, req *pb.DiagnosticsRequest) (*pb.DiagnosticsResponse, error) {
	if id := req.GetConnectionId(); id != "" {
		d, ok := s.diagnosticsOf(id)
		if !ok {
			return nil, toStatus("diagnostics", Errorf("diagnostics", KindInternal, "no connection %q in this plugin process", id))
		}
		return diagnosticsToProto(d), nil
	}
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	if last == nil {
		return &pb.DiagnosticsResponse{}, nil
	}
	return diagnosticsToProto(last.Diagnostics()), nil
}

// Connect runs one connection: Open, then relay messages both ways until
// either side ends. Every frame to the host goes through one sender (the
// relay, Opened and credential requests share the stream). The host's frames
// are read from the start, since a transport may ask for credentials while
// it opens.
func (s *grpcServer) Connect(stream pb.Transport_ConnectServer) error {
	first, err := stream.Recv()
	if err != nil {
		return toStatus("open", err)
	}
	open := first.GetOpen()
	if open == nil {
		return toStatus("open", Errorf("open", KindInternal, "first frame must be Open"))
	}
	out := &frameSender{stream: stream}
	var creds *streamCredentials
	if open.GetCredentials() {
		creds = newStreamCredentials(out.send)
	}
	in := &hostReader{stream: stream, creds: creds, logger: s.logger, ready: make(chan struct{})}
	fromHost := make(chan error, 1)
	go func() { fromHost <- in.run(stream.Context()) }()

	conn, err := s.open(stream.Context(), open, creds)
	if err != nil {
		return toStatus("open", err)
	}
	id := s.track(conn)
	defer s.untrack(id) // after Close: the final diagnostics say how the server ended
	defer conn.Close()
	if dp, ok := conn.(DiagnosticsProvider); ok {
		s.mu.Lock()
		s.last = dp
		s.mu.Unlock()
	}
	if err := s.announce(stream, out, conn, id, open.GetWantDirectPipes()); err != nil {
		return toStatus("open", err)
	}
	in.conn = conn
	close(in.ready)
	return toStatus("relay", s.relay(stream.Context(), out, conn, fromHost, open.GetAcceptParts()))
}

// frameSender serialises the frames sent to the host.
type frameSender struct {
	mu     sync.Mutex
	stream pb.Transport_ConnectServer
}

func (f *frameSender) send(frame *pb.PluginFrame) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stream.Send(frame)
}

// announce sends the Opened frame. When the host asked for direct pipes and the
// connection can hand them off, the frame carries the socket the host collects
// them from; messages then flow host↔server directly and the relay below only
// carries the connection's lifetime (server exit, host close).
func (s *grpcServer) announce(stream pb.Transport_ConnectServer, out *frameSender, conn Conn, id string, wantPipes bool) error {
	opened := &pb.Opened{SessionId: conn.SessionID(), ConnectionId: id}
	ph, ok := conn.(PipeHandoff)
	if !wantPipes || !ok {
		return out.send(&pb.PluginFrame{Frame: &pb.PluginFrame_Opened{Opened: opened}})
	}
	stdin, stdout, err := ph.HandOff()
	if err != nil {
		return err
	}
	return offerPipes(stream.Context(), stdin, stdout, func(path string) error {
		opened.PipeSocket = path
		return out.send(&pb.PluginFrame{Frame: &pb.PluginFrame_Opened{Opened: opened}})
	})
}

func (s *grpcServer) open(ctx context.Context, open *pb.Open, creds *streamCredentials) (Conn, error) {
	if d := open.GetDeadlineUnixNano(); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, time.Unix(0, d))
		defer cancel()
	}
	req := OpenRequest{
		ServerName:      open.GetServerName(),
		Config:          open.GetConfig(),
		WantDirectPipes: open.GetWantDirectPipes(),
		MaxMessageBytes: int(min(open.GetMaxMessageBytes(), maxMessageBytes)),
		Spool:           spoolFromProto(open.GetSpool()),
	}
	if creds != nil {
		req.Credentials = creds
	}
	return s.impl.Open(ctx, req)
}

// relay moves messages until the host closes its side (nil), the server ends
// (its error) or the stream breaks. fromHost reports the end of the host
// reader, which is already running. parts says the host takes large
// messages in parts.
func (s *grpcServer) relay(ctx context.Context, out *frameSender, conn Conn, fromHost <-chan error, parts bool) error {
	fromServer := make(chan error, 1)
	go func() { fromServer <- s.serverToHost(ctx, out, conn, parts) }()
	select {
	case err := <-fromServer:
		return err
	case err := <-fromHost:
		if errors.Is(err, io.EOF) {
			return nil // the host closed the connection
		}
		// A failed write usually means the server died; its exit reason,
		// which the reading side reports, is the more useful error.
		select {
		case rerr := <-fromServer:
			return rerr
		case <-time.After(200 * time.Millisecond):
			return err
		}
	}
}

// serverToHost relays the server's messages; with parts, one larger than
// partBytes goes as several frames (see sendParts).
func (s *grpcServer) serverToHost(ctx context.Context, out *frameSender, conn Conn, parts bool) error {
	sid := conn.SessionID()
	for {
		msg, err := conn.Recv(ctx)
		if err != nil {
			return err
		}
		if now := conn.SessionID(); now != sid {
			sid = now
			if err := out.send(&pb.PluginFrame{Frame: &pb.PluginFrame_SessionId{SessionId: sid}}); err != nil {
				return err
			}
		}
		if parts && len(msg) > partBytes {
			err = sendParts(out, msg)
		} else {
			err = out.send(&pb.PluginFrame{Frame: &pb.PluginFrame_Message{Message: &pb.Message{Json: msg}}})
		}
		if err != nil {
			return err
		}
	}
}

// partBytes is the largest piece of a message one frame carries, for a host
// that accepts parts: gRPC then holds one part at a time on either side
// instead of the whole message.
const partBytes = 1 << 20

// sendParts sends msg as frames of at most partBytes (Message.part). Other
// frames (credential requests) may come between them; messages cannot, as
// only serverToHost sends them.
func sendParts(out *frameSender, msg []byte) error {
	for off := 0; off < len(msg); off += partBytes {
		end := min(off+partBytes, len(msg))
		m := &pb.Message{Part: msg[off:end], More: end < len(msg)}
		if off == 0 {
			m.TotalBytes = int64(len(msg))
		}
		if err := out.send(&pb.PluginFrame{Frame: &pb.PluginFrame_Message{Message: m}}); err != nil {
			return err
		}
	}
	return nil
}

// hostReader reads the host's frames from the moment the connection is
// requested: credential answers go to creds at once; messages, which the
// host sends only after Opened, go to conn once ready is closed.
type hostReader struct {
	stream pb.Transport_ConnectServer
	creds  *streamCredentials // nil without credentials
	logger hclog.Logger
	ready  chan struct{} // closed once conn is set
	conn   Conn
}

// deliveryQueue is how many host messages may wait while one is delivered,
// when credentials are on.
const deliveryQueue = 64

// run returns io.EOF when the host closed its side, or why the stream broke.
// Without credentials it delivers each message before reading the next
// frame. With them, delivery runs in a goroutine of its own, in order: a
// transport may ask for credentials while it delivers a message, and the
// answer is a frame this loop must be free to read.
func (h *hostReader) run(ctx context.Context) error {
	if h.creds == nil {
		return h.read(ctx, func(m *pb.Message) error { return h.deliver(ctx, m) })
	}
	defer h.creds.end()
	queue := make(chan *pb.Message, deliveryQueue)
	failed := make(chan error, 1)
	go func() {
		for m := range queue {
			if err := h.deliver(ctx, m); err != nil {
				failed <- err
				return
			}
		}
	}()
	defer close(queue)
	return h.read(ctx, func(m *pb.Message) error {
		select {
		case queue <- m:
			return nil
		case err := <-failed:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}

// read handles frames until the stream ends or deliver fails.
func (h *hostReader) read(ctx context.Context, deliver func(*pb.Message) error) error {
	for {
		f, err := h.stream.Recv()
		if err != nil {
			return err
		}
		switch fr := f.GetFrame().(type) {
		case *pb.HostFrame_Message:
			if err := deliver(fr.Message); err != nil {
				return err
			}
		case *pb.HostFrame_Credential:
			if h.creds != nil {
				h.creds.deliver(fr.Credential)
			}
		default:
			h.logger.Warn("ignoring unexpected frame from host")
		}
	}
}

// deliver sends one message to the server once the connection is open.
func (h *hostReader) deliver(ctx context.Context, m *pb.Message) error {
	select {
	case <-h.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	return sendWithDeadline(ctx, h.conn, m)
}

func sendWithDeadline(ctx context.Context, conn Conn, m *pb.Message) error {
	if d := m.GetDeadlineUnixNano(); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, time.Unix(0, d))
		defer cancel()
	}
	return conn.Send(ctx, m.GetJson())
}

func diagnosticsToProto(d Diagnostics) *pb.DiagnosticsResponse {
	out := &pb.DiagnosticsResponse{Stderr: d.Stderr, Pid: int64(d.PID), ExitStatus: d.ExitStatus, Warnings: d.Warnings}
	if !d.ExitedAt.IsZero() {
		out.ExitedAtUnixNano = d.ExitedAt.UnixNano()
	}
	return out
}

func diagnosticsFromProto(r *pb.DiagnosticsResponse) Diagnostics {
	d := Diagnostics{Stderr: r.GetStderr(), PID: int(r.GetPid()), ExitStatus: r.GetExitStatus(), Warnings: r.GetWarnings()}
	if n := r.GetExitedAtUnixNano(); n > 0 {
		d.ExitedAt = time.Unix(0, n)
	}
	return d
}
