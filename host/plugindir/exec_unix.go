//go:build !windows

package plugindir

import (
	"io/fs"
	"strconv"
)

// exeSuffix ends every executable's name: none here.
const exeSuffix = ""

// executable reports whether a file of mode m may be run: any execute bit.
func executable(m fs.FileMode) bool { return m&0o111 != 0 }

// quotePath quotes a directory Go-style, so a space, quote or control
// character in it shows.
func quotePath(p string) string { return strconv.Quote(p) }
