//go:build !linux

package proctree

import "time"

// Off Linux there is no /proc to read: every function answers "nothing
// seen", so the benchmarks that use it build everywhere and report no
// processes. The tests that rely on it are Linux-only.

// Read reports no process.
func Read(pid int) (Proc, bool) { return Proc{}, false }

// All returns no process.
func All() []Proc { return nil }

// Descendants returns no process.
func Descendants(root int) []Proc { return nil }

// Alive returns no process.
func Alive(ps []Proc) []Proc { return nil }

// Kill does nothing.
func Kill(ps []Proc) {}

// FDs returns -1 (unknown).
func FDs(pid int) int { return -1 }

// RSS returns -1 (unknown).
func RSS(pid int) int64 { return -1 }

// PSS returns -1 (unknown).
func PSS(pid int) int64 { return -1 }

// CPU returns -1 (unknown).
func CPU(pid int) time.Duration { return -1 }

// WriteCalls returns -1 (unknown).
func WriteCalls(pid int) int64 { return -1 }
