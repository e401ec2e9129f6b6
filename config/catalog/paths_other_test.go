//go:build !windows

package catalog_test

// Absolute paths as the tests write them on this system; the Windows
// values, with a drive, are in paths_windows_test.go.
const (
	// testHome is the home directory a preset's ~ expands to.
	testHome = "/home/u"
	// testDirA and testDirC are absolute directories, kept as they are.
	testDirA = "/a"
	testDirC = "/c"
)
