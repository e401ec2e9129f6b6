//go:build !windows

package audit

import "os"

// openAppend opens (creating, mode 0600) the log file at path to append
// to it. Another process may rename or remove it while it is open.
func openAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
}

// appendLocked writes b at the end of f. O_APPEND makes each write land
// whole at the end, whoever else appends to the file.
func appendLocked(f *os.File, b []byte) (int, error) { return f.Write(b) }
