//go:build unix

package pluginapi

import "syscall"

// allocChunk returns an empty slice of capacity n in anonymous memory outside
// the Go heap: freeChunk hands it straight back to the kernel, so a long
// line's chunks neither wait for the garbage collector nor raise its target.
func allocChunk(n int) ([]byte, error) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, err
	}
	return b[:0], nil
}

// freeChunk unmaps a chunk from allocChunk.
func freeChunk(b []byte) { _ = syscall.Munmap(b[:cap(b)]) }
