package config

import (
	"fmt"
	"io"

	"github.com/plughost/plughost/lib/atomicfile"
)

// MaxFileBytes bounds each config file Load reads — the user file (or the
// candidate content of an edit) and each system layer. Loading costs
// about 75 bytes of allocation and a few hundred nanoseconds per byte
// (koanf's merge, the checks, decoding), and a reload of a running serve
// builds state for every server the file holds: 16 MiB, about 65,000
// servers of a typical size, is the most one load or reload may cost. A
// larger file is not read; it is a problem of the whole config, so serve
// refuses to start on it and a reload keeps the previous config.
const MaxFileBytes = 16 << 20

// readFile reads a config file of at most MaxFileBytes. A larger one is
// not read: it is reported (tooLarge) and readFile returns nil data.
func (ld *loader) readFile(path string) ([]byte, error) {
	f, err := atomicfile.Open(path) // plughost mcp add may be replacing it
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > MaxFileBytes {
		ld.tooLarge(path, fi.Size())
		return nil, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes { // it grew since Stat
		ld.tooLarge(path, int64(len(data)))
		return nil, nil
	}
	return data, nil
}

// tooLarge reports a config file over MaxFileBytes, naming the limit.
func (ld *loader) tooLarge(name string, size int64) {
	ld.fatal(fmt.Sprintf("%s is %.1f MiB; a config file may be at most %d MiB (the limit on what loading or reloading one may cost; "+
		"about 65,000 servers of a typical size): keep fewer servers in it", name, float64(size)/(1<<20), MaxFileBytes>>20))
}
