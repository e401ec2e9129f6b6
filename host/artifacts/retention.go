package artifacts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Retention says which artifacts Sweep removes.
type Retention struct {
	// MaxAge removes files last modified longer ago (0: no age limit).
	MaxAge time.Duration
	// MaxTotalBytes removes the oldest files while all artifacts together
	// are larger (0: no size limit).
	MaxTotalBytes int64
	// Grace protects files modified this recently from the size limit, so
	// that a [file:...] reference just handed to the model stays valid.
	Grace time.Duration
}

// SweepResult reports one sweep.
type SweepResult struct {
	// Removed is the number of files removed.
	Removed int
	// FreedBytes is their total size.
	FreedBytes int64
	// KeptBytes is the size of what remains.
	KeptBytes int64
}

// staleTemp is the age after which an unfinished temporary file that no
// writer holds is removed (left behind by a crash).
const staleTemp = time.Hour

type entry struct {
	path string
	size int64
	mod  time.Time
}

// Sweep applies r to every kind of artifact, every client's included
// (MaxTotalBytes bounds them all together): first files older than MaxAge,
// then, oldest first, files outside the grace period while the total exceeds
// MaxTotalBytes. A file being written or read is never removed, and neither
// is anything that is not a regular file. Errors removing one file do not
// stop the sweep; they are joined in the returned error.
func (s *Store) Sweep(r Retention) (SweepResult, error) {
	now := s.now()
	files, errs := s.collect()
	slices.SortFunc(files, func(a, b entry) int { return a.mod.Compare(b.mod) })
	var res SweepResult
	var total int64
	for _, f := range files {
		total += f.size
	}
	remove := func(f entry) {
		if s.busy(f.path) {
			return
		}
		if err := os.Remove(f.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove artifact: %w", err))
			return
		}
		res.Removed++
		res.FreedBytes += f.size
		total -= f.size
	}
	for _, f := range files {
		age := now.Sub(f.mod)
		switch {
		case strings.HasPrefix(filepath.Base(f.path), tempPrefix):
			if age > staleTemp {
				remove(f)
			}
		case r.MaxAge > 0 && age > r.MaxAge:
			remove(f)
		case r.MaxTotalBytes > 0 && total > r.MaxTotalBytes && age > r.Grace:
			remove(f)
		}
	}
	res.KeptBytes = total
	return res, errors.Join(errs...)
}

// collect lists the regular files of every kind's directory, the
// workspace's and each client's.
func (s *Store) collect() ([]entry, []error) {
	var files []entry
	dirs, errs := s.kindDirs()
	for _, dir := range dirs {
		des, err := os.ReadDir(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("list artifacts: %w", err))
			continue
		}
		for _, de := range des {
			if !de.Type().IsRegular() {
				continue
			}
			fi, err := de.Info()
			if err != nil {
				continue // removed meanwhile
			}
			files = append(files, entry{path: filepath.Join(dir, de.Name()), size: fi.Size(), mod: fi.ModTime()})
		}
	}
	return files, errs
}

// kindDirs returns the directories of every kind of artifact: the store's
// own and, for the workspace's store, those of every client's directory
// under .artifacts/clients (symbolic links there are not followed).
func (s *Store) kindDirs() ([]string, []error) {
	kinds := []string{KindMCP, KindTool}
	var dirs []string
	for _, kind := range kinds {
		dirs = append(dirs, s.Dir(kind))
	}
	if s.client != "" {
		return dirs, nil
	}
	clients := filepath.Join(s.base, clientsDir)
	des, err := os.ReadDir(clients)
	if errors.Is(err, os.ErrNotExist) {
		return dirs, nil
	}
	if err != nil {
		return dirs, []error{fmt.Errorf("list client artifacts: %w", err)}
	}
	for _, de := range des {
		if !de.IsDir() {
			continue
		}
		for _, kind := range kinds {
			dirs = append(dirs, filepath.Join(clients, de.Name(), kind))
		}
	}
	return dirs, nil
}

// RunRetention sweeps now and then every interval until ctx ends, reporting
// each sweep to report (which may be nil).
func (s *Store) RunRetention(ctx context.Context, r Retention, interval time.Duration, report func(SweepResult, error)) {
	if report == nil {
		report = func(SweepResult, error) {}
	}
	report(s.Sweep(r))
	if interval <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			report(s.Sweep(r))
		}
	}
}
