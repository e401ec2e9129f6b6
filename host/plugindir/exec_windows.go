//go:build windows

package plugindir

import "io/fs"

// exeSuffix ends every executable's name on Windows.
const exeSuffix = ".exe"

// executable reports true: Windows has no execute bit (os.Stat reports
// 0666 or 0444), the .exe suffix is what makes a file runnable.
func executable(fs.FileMode) bool { return true }

// quotePath quotes a directory as Windows shows it: "C:\Users\me\plugins",
// not Go's %q with every backslash doubled. A Windows path holds no '"' or
// control character that would need escaping.
func quotePath(p string) string { return `"` + p + `"` }
