package pluginapi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/plughost/plughost/pluginapi/internal/pb"
)

// frameCodec decodes the plugin's frames on one Connect stream, on the
// host. gRPC's proto codec would copy a message's bytes twice (into one
// buffer, then into the decoded field); here they go once, straight from
// gRPC's receive buffers into a slice of their final size — the whole
// message's when the plugin sends it in parts (Message.part), so gRPC holds
// one part at a time and the host the message once. Frames other than
// messages, and everything the host sends, use the proto codec.
//
// One codec serves one stream; gRPC calls Unmarshal from the goroutine that
// receives (grpcConn.pump), which also reads err, so it needs no lock.
type frameCodec struct {
	limit   int    // the largest message accepted, in bytes
	partial []byte // the message being gathered from parts; nil between messages
	err     error  // why the last Unmarshal failed, as a *Error
}

// protoCodec is gRPC's own codec, for what frameCodec does not handle.
var protoCodec = encoding.GetCodecV2(proto.Name)

// Name is the proto codec's, so the content type on the wire is unchanged.
func (c *frameCodec) Name() string { return proto.Name }

// Marshal encodes what the host sends, with the proto codec.
func (c *frameCodec) Marshal(v any) (mem.BufferSlice, error) { return protoCodec.Marshal(v) }

// Unmarshal decodes a PluginFrame. A part that is not the last leaves the
// frame empty (Frame nil): there is nothing to deliver yet.
func (c *frameCodec) Unmarshal(data mem.BufferSlice, v any) error {
	f, ok := v.(*pb.PluginFrame)
	if !ok || !isMessageFrame(data) {
		return protoCodec.Unmarshal(data, v)
	}
	r := data.Reader()
	defer r.Close()
	m, err := c.message(r)
	if err != nil {
		c.partial = nil
		c.err = err
		return err
	}
	f.Frame = nil
	if m != nil {
		f.Frame = &pb.PluginFrame_Message{Message: m}
	}
	return nil
}

// isMessageFrame reports whether the frame's only field is its message.
func isMessageFrame(data mem.BufferSlice) bool {
	var head [binary.MaxVarintLen64 + 1]byte
	n := data.CopyTo(head[:])
	num, typ, tagLen := protowire.ConsumeTag(head[:n])
	if tagLen < 0 || num != 2 || typ != protowire.BytesType {
		return false
	}
	size, sizeLen := protowire.ConsumeVarint(head[tagLen:n])
	return sizeLen > 0 && uint64(data.Len()-tagLen-sizeLen) == size
}

// message decodes the Message field of a frame from r (positioned on its
// tag): nil, nil for a part that is not the last.
func (c *frameCodec) message(r *mem.Reader) (*pb.Message, error) {
	if _, err := readVarint(r); err != nil { // the frame's tag, checked by isMessageFrame
		return nil, err
	}
	if _, err := readVarint(r); err != nil { // the message's length: the rest of r
		return nil, err
	}
	m := &pb.Message{}
	isPart := false
	for r.Remaining() > 0 {
		tag, err := readVarint(r)
		if err != nil {
			return nil, err
		}
		num, typ := protowire.DecodeTag(tag)
		switch {
		case num == 1 && typ == protowire.BytesType:
			if m.Json, err = c.readBytes(r, nil); err != nil {
				return nil, err
			}
		case num == 5 && typ == protowire.BytesType:
			isPart = true
			if err := c.readPart(r, m.GetTotalBytes()); err != nil {
				return nil, err
			}
		case typ == protowire.VarintType:
			x, err := readVarint(r)
			if err != nil {
				return nil, err
			}
			switch num {
			case 2:
				m.DeadlineUnixNano = int64(x)
			case 3:
				m.More = x != 0
			case 4:
				m.TotalBytes = int64(x)
			}
		default:
			if err := skipField(r, typ); err != nil {
				return nil, err
			}
		}
	}
	if !isPart {
		return m, nil
	}
	if m.More {
		return nil, nil
	}
	if int64(len(c.partial)) != int64(cap(c.partial)) {
		return nil, Errorf("recv", KindInternal, "the plugin sent %d of the %d bytes it announced for a message", len(c.partial), cap(c.partial))
	}
	m.Json, c.partial = c.partial, nil
	return m, nil
}

// readPart appends one part to the message being gathered, starting it
// (with room for total bytes, the first part's total_bytes) if needed.
func (c *frameCodec) readPart(r *mem.Reader, total int64) error {
	if c.partial == nil {
		if total <= 0 {
			return Errorf("recv", KindInternal, "the first part of a message does not say its size")
		}
		if total > int64(c.limit) {
			return c.tooLarge(total)
		}
		c.partial = makeNoZero(int(total))
	}
	var err error
	c.partial, err = c.readBytes(r, c.partial)
	return err
}

// readBytes reads a length-prefixed field and appends it to dst, or to a
// new slice of its exact size when dst is nil; dst never grows past its
// capacity.
func (c *frameCodec) readBytes(r *mem.Reader, dst []byte) ([]byte, error) {
	n, err := readVarint(r)
	if err != nil {
		return nil, err
	}
	if n > uint64(r.Remaining()) {
		return nil, Errorf("recv", KindInternal, "a frame field of %d bytes is longer than the frame", n)
	}
	if dst == nil {
		if n > uint64(c.limit) {
			return nil, c.tooLarge(int64(n))
		}
		dst = makeNoZero(int(n))
	} else if n > uint64(cap(dst)-len(dst)) {
		return nil, Errorf("recv", KindInternal, "the plugin sent more bytes than it announced for a message")
	}
	start := len(dst)
	dst = dst[:start+int(n)]
	if _, err := io.ReadFull(r, dst[start:]); err != nil {
		return nil, err
	}
	return dst, nil
}

func (c *frameCodec) tooLarge(n int64) error {
	return &Error{Op: "recv", Kind: KindMessageTooLarge,
		Err: fmt.Errorf("the plugin relayed a message of %d bytes, over the %s limit", n, FormatBytes(c.limit))}
}

func readVarint(r *mem.Reader) (uint64, error) {
	x, err := binary.ReadUvarint(r)
	if err != nil {
		return 0, Errorf("recv", KindInternal, "malformed frame: %v", err)
	}
	return x, nil
}

// skipField skips a field of wire type typ that the host does not know.
func skipField(r *mem.Reader, typ protowire.Type) error {
	var n uint64
	switch typ {
	case protowire.Fixed32Type:
		n = 4
	case protowire.Fixed64Type:
		n = 8
	case protowire.BytesType:
		var err error
		if n, err = readVarint(r); err != nil {
			return err
		}
	default:
		return Errorf("recv", KindInternal, "malformed frame: wire type %d", typ)
	}
	if n > uint64(r.Remaining()) {
		return errors.New("malformed frame: a field runs past its end")
	}
	_, err := r.Discard(int(n))
	return err
}
