package pluginapi

import (
	"context"
	"errors"
	"io"
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

	mu   sync.Mutex
	last DiagnosticsProvider // the current or most recent connection
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

func (s *grpcServer) Diagnostics(context.Context, *pb.DiagnosticsRequest) (*pb.DiagnosticsResponse, error) {
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	if last == nil {
		return &pb.DiagnosticsResponse{}, nil
	}
	return diagnosticsToProto(last.Diagnostics()), nil
}

// Connect runs one connection: Open, then relay messages both ways until
// either side ends. Only the relay goroutine reading from the server writes to
// the stream after Opened, so the stream has a single writer.
func (s *grpcServer) Connect(stream pb.Transport_ConnectServer) error {
	first, err := stream.Recv()
	if err != nil {
		return toStatus("open", err)
	}
	open := first.GetOpen()
	if open == nil {
		return toStatus("open", Errorf("open", KindInternal, "first frame must be Open"))
	}
	conn, err := s.open(stream.Context(), open)
	if err != nil {
		return toStatus("open", err)
	}
	defer conn.Close()
	if dp, ok := conn.(DiagnosticsProvider); ok {
		s.mu.Lock()
		s.last = dp
		s.mu.Unlock()
	}
	if err := s.announce(stream, conn, open.GetWantDirectPipes()); err != nil {
		return toStatus("open", err)
	}
	return toStatus("relay", s.relay(stream, conn, open.GetAcceptParts()))
}

// announce sends the Opened frame. When the host asked for direct pipes and the
// connection can hand them off, the frame carries the socket the host collects
// them from; messages then flow host↔server directly and the relay below only
// carries the connection's lifetime (server exit, host close).
func (s *grpcServer) announce(stream pb.Transport_ConnectServer, conn Conn, wantPipes bool) error {
	opened := &pb.Opened{SessionId: conn.SessionID()}
	ph, ok := conn.(PipeHandoff)
	if !wantPipes || !ok {
		return stream.Send(&pb.PluginFrame{Frame: &pb.PluginFrame_Opened{Opened: opened}})
	}
	stdin, stdout, err := ph.HandOff()
	if err != nil {
		return err
	}
	return offerPipes(stream.Context(), stdin, stdout, func(path string) error {
		opened.PipeSocket = path
		return stream.Send(&pb.PluginFrame{Frame: &pb.PluginFrame_Opened{Opened: opened}})
	})
}

func (s *grpcServer) open(ctx context.Context, open *pb.Open) (Conn, error) {
	if d := open.GetDeadlineUnixNano(); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, time.Unix(0, d))
		defer cancel()
	}
	return s.impl.Open(ctx, OpenRequest{
		ServerName:      open.GetServerName(),
		Config:          open.GetConfig(),
		WantDirectPipes: open.GetWantDirectPipes(),
		MaxMessageBytes: int(min(open.GetMaxMessageBytes(), maxMessageBytes)),
	})
}

// relay moves messages until the host closes its side (nil), the server ends
// (its error) or the stream breaks.
func (s *grpcServer) relay(stream pb.Transport_ConnectServer, conn Conn, parts bool) error {
	ctx := stream.Context()
	fromServer := make(chan error, 1)
	fromHost := make(chan error, 1)
	go func() { fromServer <- s.serverToHost(ctx, stream, conn, parts) }()
	go func() { fromHost <- s.hostToServer(ctx, stream, conn) }()
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
func (s *grpcServer) serverToHost(ctx context.Context, stream pb.Transport_ConnectServer, conn Conn, parts bool) error {
	sid := conn.SessionID()
	for {
		msg, err := conn.Recv(ctx)
		if err != nil {
			return err
		}
		if now := conn.SessionID(); now != sid {
			sid = now
			if err := stream.Send(&pb.PluginFrame{Frame: &pb.PluginFrame_SessionId{SessionId: sid}}); err != nil {
				return err
			}
		}
		if parts && len(msg) > partBytes {
			err = sendParts(stream, msg)
		} else {
			err = stream.Send(&pb.PluginFrame{Frame: &pb.PluginFrame_Message{Message: &pb.Message{Json: msg}}})
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

// sendParts sends msg as frames of at most partBytes (Message.part).
func sendParts(stream pb.Transport_ConnectServer, msg []byte) error {
	for off := 0; off < len(msg); off += partBytes {
		end := min(off+partBytes, len(msg))
		m := &pb.Message{Part: msg[off:end], More: end < len(msg)}
		if off == 0 {
			m.TotalBytes = int64(len(msg))
		}
		if err := stream.Send(&pb.PluginFrame{Frame: &pb.PluginFrame_Message{Message: m}}); err != nil {
			return err
		}
	}
	return nil
}

func (s *grpcServer) hostToServer(ctx context.Context, stream pb.Transport_ConnectServer, conn Conn) error {
	for {
		f, err := stream.Recv()
		if err != nil {
			return err // io.EOF: the host closed the connection
		}
		m := f.GetMessage()
		if m == nil {
			s.logger.Warn("ignoring unexpected frame from host")
			continue
		}
		if err := sendWithDeadline(ctx, conn, m); err != nil {
			return err
		}
	}
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
