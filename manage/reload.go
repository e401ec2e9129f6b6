package manage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/plughost/plughost/host"
)

// ReloadResult is what Reload did.
type ReloadResult struct {
	host.ApplyResult
	// Warnings are the loaded config's warnings (see config.Loaded).
	Warnings []string `json:"warnings,omitempty"`
	// Demo reports that the built-in demo config is in use.
	Demo bool `json:"demo,omitempty"`
}

// Reload loads the configuration again and applies it to h (host.Apply): a
// config with global problems is rejected whole (a *host.InvalidConfigError)
// and h keeps running the previous one; a file that cannot be read is an
// error too, with the same effect.
func (m *Manager) Reload(h *host.Host) (ReloadResult, error) {
	l, err := m.Load()
	if err != nil {
		return ReloadResult{}, fmt.Errorf("reload: %w", err)
	}
	res, err := h.ApplyLoaded(l.Loaded)
	if err != nil {
		return ReloadResult{}, err
	}
	return ReloadResult{ApplyResult: res, Warnings: l.Warnings, Demo: l.Demo}, nil
}

// WatchDebounce is how long a FileWatch waits after the last change of the file
// before it reports it: editors write a file in several steps.
const WatchDebounce = 150 * time.Millisecond

// FileWatch watches the user config file (see Manager.WatchFile). It is
// owned by one goroutine, which calls Run.
type FileWatch struct {
	fs       *fsnotify.Watcher
	targets  map[string]bool
	debounce time.Duration
}

// WatchFile starts watching the user file: once it returns, every change is
// seen. Run reports the changes; the watch ends when Run returns. It watches
// the file's directory (created 0700 if missing), so that an atomic rename
// over the file (how editors and plughost write it) is seen and the file may
// not exist yet, and the target's directory too when the file is a symlink.
// debounce is the quiet period after the last event before a change is
// reported (WatchDebounce if 0): editors write a file in several steps.
func (m *Manager) WatchFile(debounce time.Duration) (*FileWatch, error) {
	path := m.UserFile()
	if path == "" {
		return nil, errors.New("watch config: no user config file (set HOME, --config or PLUGHOST_CONFIG)")
	}
	if debounce <= 0 {
		debounce = WatchDebounce
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("watch config: %w", err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch config: %w", err)
	}
	fw := &FileWatch{fs: w, targets: watchTargets(path), debounce: debounce}
	for _, d := range watchDirs(fw.targets) {
		if err := w.Add(d); err != nil {
			w.Close()
			return nil, fmt.Errorf("watch config directory %s: %w", d, err)
		}
	}
	return fw, nil
}

// Run calls changed once the file was created, written, replaced or
// removed and then stayed quiet for the debounce period, until ctx ends;
// then it ends the watch. Changes of other files in the directory do not
// count. A lost event (the kernel queue overflowed) counts as a change.
func (w *FileWatch) Run(ctx context.Context, changed func()) {
	defer w.fs.Close()
	timer := time.NewTimer(w.debounce)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			if w.targets[filepath.Clean(ev.Name)] && !ev.Has(fsnotify.Chmod) {
				timer.Reset(w.debounce)
			}
		case _, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			timer.Reset(w.debounce)
		case <-timer.C:
			changed()
		case <-ctx.Done():
			return
		}
	}
}

// watchTargets are the names whose events mean the config changed: the
// file, and the target of a symlinked file (a dotfiles repository).
func watchTargets(path string) map[string]bool {
	out := map[string]bool{filepath.Clean(path): true}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		out[filepath.Clean(real)] = true
	}
	return out
}

// watchDirs are the directories holding targets, each once.
func watchDirs(targets map[string]bool) []string {
	seen := map[string]bool{}
	var out []string
	for t := range targets {
		if d := filepath.Dir(t); !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}
