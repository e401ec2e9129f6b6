package config

// Absolute paths as the tests write them on Windows, where one has a drive;
// the Unix values are in paths_other_test.go.
const (
	// testHome is the home directory of loadUser.
	testHome = `C:\home\u`
	// testUserFile is the user file loadUser names in its messages.
	testUserFile = `C:\home\u\.plughost\config.json`
	// testAbs is an absolute path that needs no cleaning.
	testAbs = `C:\abs`
	// testRootDir is an absolute roots entry and testRootDirURI its URI.
	testRootDir    = `C:\srv\data`
	testRootDirURI = "file:///C:/srv/data"
	// testRootURI is a file:// roots entry of an absolute path.
	testRootURI = "file:///C:/home/u/proj"
	// testRootHint is how a bad roots entry's message says to write one.
	testRootHint = `write it as "C:\\abs\\dir" or "file:///C:/abs/dir"`
)
