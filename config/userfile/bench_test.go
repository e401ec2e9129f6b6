package userfile

import (
	"bytes"
	"path/filepath"
	"testing"
)

// BenchmarkWrite is one safe write of a 30 KB config: lock, fingerprint
// check, backup, temp file, fsync, rename, directory fsync.
func BenchmarkWrite(b *testing.B) {
	path := filepath.Join(b.TempDir(), "config.json")
	data := bytes.Repeat([]byte("x"), 30<<10)
	f, err := Read(path)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		data[0] = byte('a' + i%26) // a real change each time, so a backup is made
		if err := f.Write(data); err != nil {
			b.Fatal(err)
		}
	}
}
