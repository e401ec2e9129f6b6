package pluginapi

import "io"

// Chunks holds a long message the way LineReader gathers a long line: in
// 1 MiB chunks kept outside the Go heap where the platform allows, so
// holding it neither waits for the garbage collector nor raises its target.
// Read hands the bytes back in order and releases each chunk as soon as it
// has been read; Release drops what is left. The zero value is empty and
// ready. Not safe for concurrent use.
type Chunks struct {
	s   spill
	off int // bytes of the first chunk already read
}

// Write appends b.
func (c *Chunks) Write(b []byte) (int, error) {
	if err := c.s.write(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Len returns how many bytes are held and not yet read.
func (c *Chunks) Len() int { return c.s.size - c.off }

// Read moves held bytes into p; io.EOF once none are left.
func (c *Chunks) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && len(c.s.chunks) > 0 {
		first := c.s.chunks[0]
		k := copy(p[n:], first[c.off:])
		n += k
		c.off += k
		if c.off == len(first) {
			freeChunk(first)
			c.s.chunks[0] = nil
			c.s.chunks = c.s.chunks[1:]
			c.s.size -= c.off
			c.off = 0
		}
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// Release drops every held byte.
func (c *Chunks) Release() {
	c.s.release()
	c.s.size, c.off = 0, 0
}
