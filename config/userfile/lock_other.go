//go:build !unix

package userfile

import "time"

// lock is a no-op where advisory locks are not available; the fingerprint
// check before the rename still catches most concurrent changes.
func lock(path string, wait time.Duration) (func(), error) { return func() {}, nil }
