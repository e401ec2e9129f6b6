//go:build !windows

package config

// Absolute paths as the tests write them on this system; the Windows
// values, with a drive, are in paths_windows_test.go.
const (
	// testHome is the home directory of loadUser.
	testHome = "/home/u"
	// testUserFile is the user file loadUser names in its messages.
	testUserFile = "/home/u/.plughost/config.json"
	// testAbs is an absolute path that needs no cleaning.
	testAbs = "/abs"
)
