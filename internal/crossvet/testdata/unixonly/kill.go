// Package unixonly builds on Unix only (syscall.Kill) and has a printf
// mistake go vet reports: crossvet's test finds each where it should.
package unixonly

import (
	"fmt"
	"syscall"
)

// Stop kills pid.
func Stop(pid int) error {
	fmt.Printf("stopping %d\n", "pid")
	return syscall.Kill(pid, syscall.SIGKILL)
}
