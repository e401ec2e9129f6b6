package host

// SetFreeMemoryHook makes h run f where it would return memory to the
// operating system (runtime.GC, debug.FreeOSMemory). Call it before Start.
func SetFreeMemoryHook(h *Host, f func()) { h.freeOS = f }

// MemoryReturnsAsked is how many times h asked for a memory return after a
// large call.
func MemoryReturnsAsked(h *Host) int64 { return h.returns.Load() }
