package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// cpuGroup is a cgroup whose processes share a CPU quota: a replica held
// to its own CPU share, so replicas add capacity instead of competing.
type cpuGroup struct {
	dir   string // the cgroup's directory
	procs string // the file a pid is written to, to move it in
}

// newCPUGroup makes a cgroup named name with a quota of share CPUs, under
// cgroup v2 (/sys/fs/cgroup with the cpu controller) or v1
// (/sys/fs/cgroup/cpu). It fails, saying why, where neither is writable
// (no root, a container without cgroup delegation).
func newCPUGroup(name string, share float64) (*cpuGroup, error) {
	const period = 100_000 // µs
	quota := strconv.Itoa(int(share * period))
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		dir := filepath.Join("/sys/fs/cgroup", name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, fmt.Errorf("cgroup v2: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cpu.max"), []byte(quota+" "+strconv.Itoa(period)), 0o644); err != nil {
			os.Remove(dir)
			return nil, fmt.Errorf("cgroup v2: set cpu.max (is the cpu controller enabled in /sys/fs/cgroup/cgroup.subtree_control?): %w", err)
		}
		return &cpuGroup{dir: dir, procs: filepath.Join(dir, "cgroup.procs")}, nil
	}
	dir := filepath.Join("/sys/fs/cgroup/cpu", name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cgroup v1: %w", err)
	}
	for file, v := range map[string]string{"cpu.cfs_period_us": strconv.Itoa(period), "cpu.cfs_quota_us": quota} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(v), 0o644); err != nil {
			os.Remove(dir)
			return nil, fmt.Errorf("cgroup v1: set %s: %w", file, err)
		}
	}
	return &cpuGroup{dir: dir, procs: filepath.Join(dir, "cgroup.procs")}, nil
}

// wrap returns argv run inside the group: a shell moves itself in, then
// execs the command (same pid; its children inherit the group).
func (g *cpuGroup) wrap(argv []string) []string {
	return append([]string{"/bin/sh", "-c", `echo $$ > "$0" && exec "$@"`, g.procs}, argv...)
}

// remove deletes the group once its processes are gone (killed ones may
// take a moment to leave it).
func (g *cpuGroup) remove() error {
	var err error
	for range 50 {
		if err = os.Remove(g.dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("remove cgroup %s: %w", g.dir, err)
}
