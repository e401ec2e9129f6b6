package pluginapi

import (
	"strings"
	"unsafe"
)

// makeNoZero returns a slice of length 0 and capacity n whose memory the
// runtime did not clear (strings.Builder allocates its buffer so). make would
// clear reused memory first, touching every page of a message of megabytes
// before its bytes arrive — while whatever they are copied from is still
// held, doubling the peak. The builder's string is never made; its buffer
// becomes the caller's slice.
func makeNoZero(n int) []byte {
	var b strings.Builder
	b.Grow(n)
	return unsafe.Slice(unsafe.StringData(b.String()), n)[:0]
}
