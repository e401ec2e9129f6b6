package wine

import "golang.org/x/sys/windows"

// Running says this Windows binary runs under wine, whose ntdll exports
// wine_get_version; Windows' own does not.
func Running() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
