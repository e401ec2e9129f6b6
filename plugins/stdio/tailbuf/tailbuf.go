// Package tailbuf keeps the last bytes written to it: a bounded ring for the
// standard error of a server that may log forever.
package tailbuf

import (
	"bytes"
	"sync"
)

// Buffer is an io.Writer that keeps only the last Cap bytes written to it.
// Its tail may start in the middle of a line or of a UTF-8 sequence.
// It is safe for concurrent use.
type Buffer struct {
	mu      sync.Mutex
	buf     []byte // len(buf) == capacity once allocated
	next    int    // where the next byte goes
	full    bool   // buf has wrapped at least once
	written int64  // bytes ever written
}

// New returns a Buffer that keeps the last size bytes (at least 1).
func New(size int) *Buffer {
	return &Buffer{buf: make([]byte, max(size, 1))}
}

// Write appends p, dropping the oldest bytes beyond the capacity. It never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	b.written += int64(n)
	if len(p) >= len(b.buf) {
		copy(b.buf, p[len(p)-len(b.buf):])
		b.next, b.full = 0, true
		return n, nil
	}
	c := copy(b.buf[b.next:], p)
	if c < len(p) {
		copy(b.buf, p[c:])
		b.full = true
	}
	b.next = (b.next + len(p)) % len(b.buf)
	if b.next == 0 && len(p) > 0 {
		b.full = true
	}
	return n, nil
}

// Bytes returns a copy of the bytes kept, oldest first.
func (b *Buffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.full {
		return append([]byte(nil), b.buf[:b.next]...)
	}
	out := make([]byte, 0, len(b.buf))
	out = append(out, b.buf[b.next:]...)
	return append(out, b.buf[:b.next]...)
}

// String returns the bytes kept as a string.
func (b *Buffer) String() string { return string(b.Bytes()) }

// Written returns how many bytes were ever written, kept or not.
func (b *Buffer) Written() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.written
}

// Truncated reports whether bytes were dropped.
func (b *Buffer) Truncated() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.written > int64(len(b.buf))
}

// LastLines returns at most the last n lines kept, without the final newline.
// A first line cut short by the ring is dropped when other lines remain.
func (b *Buffer) LastLines(n int) string {
	data := b.Bytes()
	cut := b.Truncated()
	data = bytes.TrimSuffix(data, []byte("\n"))
	if n <= 0 || len(data) == 0 {
		return ""
	}
	start := len(data)
	for i := 0; i < n; i++ {
		j := bytes.LastIndexByte(data[:start], '\n')
		if j < 0 {
			if cut && i > 0 {
				// data[:start] is a partial line: the ring dropped its beginning.
				return string(data[start+1:])
			}
			return string(data)
		}
		start = j
	}
	return string(data[start+1:])
}
