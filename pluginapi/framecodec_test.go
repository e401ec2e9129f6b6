package pluginapi

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/plughost/plughost/pluginapi/internal/pb"
)

// wire encodes a frame and cuts its bytes into buffers of at most cut bytes,
// as gRPC's receive buffers would hold them.
func wire(t *testing.T, f *pb.PluginFrame, cut int, extra ...byte) mem.BufferSlice {
	t.Helper()
	b, err := proto.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, extra...)
	var s mem.BufferSlice
	for len(b) > 0 {
		n := min(cut, len(b))
		s = append(s, mem.SliceBuffer(append([]byte(nil), b[:n]...)))
		b = b[n:]
	}
	return s
}

func messageFrame(m *pb.Message) *pb.PluginFrame {
	return &pb.PluginFrame{Frame: &pb.PluginFrame_Message{Message: m}}
}

// recv decodes frames in order and returns the messages delivered.
func recv(t *testing.T, c *frameCodec, frames ...mem.BufferSlice) ([]string, error) {
	t.Helper()
	var got []string
	for _, data := range frames {
		var f pb.PluginFrame
		if err := c.Unmarshal(data, &f); err != nil {
			return got, err
		}
		if m := f.GetMessage(); m != nil {
			got = append(got, string(m.GetJson()))
		}
	}
	return got, nil
}

func TestFrameCodecWholeMessages(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"result":{}}`
	c := &frameCodec{limit: 1 << 20}
	for _, cut := range []int{1, 3, 1000} {
		got, err := recv(t, c, wire(t, messageFrame(&pb.Message{Json: []byte(msg), DeadlineUnixNano: 42}), cut))
		if err != nil || len(got) != 1 || got[0] != msg {
			t.Errorf("buffers of %d bytes: got %q, %v; want the message", cut, got, err)
		}
	}
}

// A message sent in parts (as sendParts does) is delivered once, whole, in
// one buffer of its exact size.
func TestFrameCodecGathersParts(t *testing.T) {
	msg := strings.Repeat("0123456789abcdef", 200) // 3,200 bytes
	var frames []mem.BufferSlice
	for off := 0; off < len(msg); off += 1000 {
		end := min(off+1000, len(msg))
		m := &pb.Message{Part: []byte(msg[off:end]), More: end < len(msg)}
		if off == 0 {
			m.TotalBytes = int64(len(msg))
		}
		frames = append(frames, wire(t, messageFrame(m), 7))
	}
	c := &frameCodec{limit: 1 << 20}
	var f pb.PluginFrame
	for i, data := range frames {
		if err := c.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		last := i == len(frames)-1
		if got := f.GetMessage(); (got != nil) != last {
			t.Fatalf("part %d delivered %v; want a message only after the last part", i, got != nil)
		}
	}
	got := f.GetMessage().GetJson()
	if string(got) != msg || cap(got) != len(msg) {
		t.Errorf("gathered %d bytes (capacity %d); want the %d-byte message exactly", len(got), cap(got), len(msg))
	}
	// The next message starts afresh.
	if got, err := recv(t, c, wire(t, messageFrame(&pb.Message{Json: []byte("{}")}), 5)); err != nil || got[0] != "{}" {
		t.Errorf("after a parted message: %q, %v", got, err)
	}
}

func TestFrameCodecRefuses(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 2000)
	tests := []struct {
		name   string
		frames []*pb.Message
		kind   Kind
	}{
		{"whole message over the limit", []*pb.Message{{Json: big}}, KindMessageTooLarge},
		{"parts announcing more than the limit", []*pb.Message{{Part: big[:10], More: true, TotalBytes: 2000}}, KindMessageTooLarge},
		{"first part without its size", []*pb.Message{{Part: big[:10], More: true}}, KindInternal},
		{"parts longer than announced", []*pb.Message{{Part: big[:10], More: true, TotalBytes: 15}, {Part: big[:10]}}, KindInternal},
		{"parts shorter than announced", []*pb.Message{{Part: big[:10], More: true, TotalBytes: 25}, {Part: big[:10]}}, KindInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &frameCodec{limit: 1000}
			var frames []mem.BufferSlice
			for _, m := range tt.frames {
				frames = append(frames, wire(t, messageFrame(m), 64))
			}
			_, err := recv(t, c, frames...)
			if KindOf(err) != tt.kind || c.err == nil {
				t.Errorf("error %v (kind %q, recorded %v); want kind %q", err, KindOf(err), c.err, tt.kind)
			}
		})
	}
}

// Frames other than messages, and fields the host does not know, decode as
// the proto codec decodes them.
func TestFrameCodecOtherFrames(t *testing.T) {
	c := &frameCodec{limit: 1 << 20}
	var f pb.PluginFrame
	if err := c.Unmarshal(wire(t, &pb.PluginFrame{Frame: &pb.PluginFrame_SessionId{SessionId: "s1"}}, 2), &f); err != nil || f.GetSessionId() != "s1" {
		t.Errorf("session id frame: %v, %v", f.GetSessionId(), err)
	}
	m, _ := proto.Marshal(&pb.Message{Json: []byte("{}")})
	m = protowire.AppendTag(m, 9, protowire.BytesType)
	m = protowire.AppendString(m, "future field")
	m = protowire.AppendTag(m, 10, protowire.Fixed64Type)
	m = protowire.AppendFixed64(m, 7)
	frame := protowire.AppendTag(nil, 2, protowire.BytesType)
	frame = protowire.AppendBytes(frame, m)
	if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(frame)}, &f); err != nil || string(f.GetMessage().GetJson()) != "{}" {
		t.Errorf("message with unknown fields: %v, %v", f.GetMessage(), err)
	}
}
