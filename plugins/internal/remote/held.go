package remote

import (
	"io"

	"github.com/plughost/plughost/pluginapi"
)

// smallHeld is how much of a held message stays in an ordinary buffer
// before the rest goes to pluginapi.Chunks: most messages are small, and a
// chunk is a 1 MiB mapping.
const smallHeld = 64 << 10

// held is a message (a response body, an event) kept until it is known
// whether it fits the message limit, then read out, each part released as
// it is read. The zero value is empty and ready.
type held struct {
	small    []byte // the first smallHeld bytes
	smallOff int    // bytes of small already read
	big      pluginapi.Chunks
}

// Write appends b.
func (h *held) Write(b []byte) (int, error) {
	n := len(b)
	if h.big.Len() == 0 && len(h.small) < smallHeld {
		k := min(len(b), smallHeld-len(h.small))
		h.small = append(h.small, b[:k]...)
		b = b[k:]
	}
	if len(b) > 0 {
		if _, err := h.big.Write(b); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// Len returns how many bytes are held and not yet read.
func (h *held) Len() int { return len(h.small) - h.smallOff + h.big.Len() }

// Read moves held bytes into p; io.EOF once none are left.
func (h *held) Read(p []byte) (int, error) {
	n := copy(p, h.small[h.smallOff:])
	h.smallOff += n
	if h.smallOff == len(h.small) {
		h.small, h.smallOff = h.small[:0], 0
	}
	if n < len(p) && h.big.Len() > 0 {
		k, _ := h.big.Read(p[n:])
		n += k
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// Release drops every held byte.
func (h *held) Release() {
	h.small, h.smallOff = nil, 0
	h.big.Release()
}
