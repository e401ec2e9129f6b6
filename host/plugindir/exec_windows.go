//go:build windows

package plugindir

import "io/fs"

// exeSuffix ends every executable's name on Windows.
const exeSuffix = ".exe"

// executable reports true: Windows has no execute bit (os.Stat reports
// 0666 or 0444), the .exe suffix is what makes a file runnable.
func executable(fs.FileMode) bool { return true }
