package catalog_test

// Absolute paths as the tests write them on Windows, where one has a drive
// and a home directory is under C:\Users; the Unix values are in
// paths_other_test.go.
const (
	// testHome is the home directory a preset's ~ expands to.
	testHome = `C:\Users\u`
	// testDirA and testDirC are absolute directories, kept as they are.
	testDirA = `C:\a`
	testDirC = `C:\c`
)
