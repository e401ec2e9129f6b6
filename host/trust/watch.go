package trust

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/plughost/plughost/lib/coalesce"
)

// pollEvery is how often a watch re-reads the pins file when the system
// cannot notify it of changes (no inotify instance left, say).
const pollEvery = 2 * time.Second

// Changes implements Store: it watches the file's directory (the file is
// replaced on every write, so the file itself cannot be watched) and, on
// every event about the file, re-reads it and delivers each server whose
// record differs from the version read before — at first, the version
// OpenFile read, so a change made after OpenFile and before Changes is
// delivered too. A file that is not valid, or empty (an editor writing
// it in place), delivers nothing until it is fixed (Load reports it
// meanwhile); a removed file delivers every server it held. Where
// notification is not available, or the directory went away, the file is
// re-read every 2 s instead. The channel closes once the watch of the
// directory has ended.
func (f *FileStore) Changes(ctx context.Context) <-chan string {
	q := coalesce.New[string]()
	w := f.notifier() // before returning: a change made from now on is seen
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		f.watch(ctx, w, q)
	}()
	delivered := make(chan string)
	go q.Deliver(ctx, delivered)
	// out closes only once the watch has let go of the directory: until
	// then Windows cannot remove it, and a host that closed must leave
	// its folders removable.
	out := make(chan string)
	go func() {
		defer close(out)
		for server := range delivered {
			select {
			case out <- server:
			case <-ctx.Done():
			}
		}
		<-watched
	}()
	return out
}

// notifier returns a watch of the file's directory, or nil when the system
// cannot give one.
func (f *FileStore) notifier() *fsnotify.Watcher {
	dir := filepath.Dir(f.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil
	}
	if err := w.Add(dir); err != nil {
		w.Close()
		return nil
	}
	return w
}

// watch delivers the servers whose record changes until ctx ends; it
// closes w.
func (f *FileStore) watch(ctx context.Context, w *fsnotify.Watcher, q *coalesce.Queue[string]) {
	last := f.opened
	check := func() {
		data, err := f.readBytes()
		if err != nil || (data != nil && len(bytes.TrimSpace(data)) == 0) {
			return // an editor's write under way: its end is another event
		}
		records, err := decodeFile(f.path, data)
		if err != nil {
			return // keep last: once fixed, the file is compared with it
		}
		now := encodeRecords(records)
		for server := range changed(last, now) {
			q.Add(server)
		}
		last = now
	}
	check()
	dir, name := filepath.Dir(f.path), filepath.Base(f.path)
	for w != nil {
		select {
		case <-ctx.Done():
			w.Close()
			return
		case ev, ok := <-w.Events:
			switch {
			case !ok || ev.Name == dir: // the watch ended, or the directory went away
				w.Close()
				w = nil
			case filepath.Base(ev.Name) == name:
				check()
			}
		case _, ok := <-w.Errors: // an overflow, say: events were lost, the file is not
			if !ok {
				w.Close()
				w = nil
			}
			check()
		}
	}
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			check()
		}
	}
}

// changed yields the servers whose encoded record differs between two
// versions of the file, the added and the removed included.
func changed(before, after map[string]string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for server, rec := range after {
			if old, ok := before[server]; (!ok || old != rec) && !yield(server) {
				return
			}
		}
		for server := range before {
			if _, ok := after[server]; !ok && !yield(server) {
				return
			}
		}
	}
}
