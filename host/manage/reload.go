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

// WatchDebounce is how long Watch waits after the last change of the file
// before it reports it: editors write a file in several steps.
const WatchDebounce = 150 * time.Millisecond

// Watch calls changed once the user file was created, written, replaced
// (editors and plughost write a temporary file and rename it over the
// original) or removed, and then stayed quiet for debounce (WatchDebounce
// if 0). It watches the file's directory, so a rename is seen and the file
// may not exist yet. It returns when ctx ends, or at once with an error if
// the directory cannot be watched.
func (m *Manager) Watch(ctx context.Context, debounce time.Duration, changed func()) error {
	path := m.UserFile()
	if path == "" {
		return errors.New("watch config: no user config file (set HOME, --config or PLUGHOST_CONFIG)")
	}
	if debounce <= 0 {
		debounce = WatchDebounce
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch config: %w", err)
	}
	defer w.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("watch config: %w", err)
	}
	targets := watchTargets(path)
	for _, d := range watchDirs(targets) {
		if err := w.Add(d); err != nil {
			return fmt.Errorf("watch config directory %s: %w", d, err)
		}
	}
	timer := time.NewTimer(debounce)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if targets[filepath.Clean(ev.Name)] && !ev.Has(fsnotify.Chmod) {
				timer.Reset(debounce)
			}
		case _, ok := <-w.Errors:
			if !ok {
				return nil
			}
			// Events may have been lost (a queue overflow): reloading
			// covers whatever they were.
			timer.Reset(debounce)
		case <-timer.C:
			changed()
		case <-ctx.Done():
			return nil
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
