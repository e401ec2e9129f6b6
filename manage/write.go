package manage

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/config/jsonedit"
)

// maxAttempts bounds the attempts of one write without a version: the
// first, then retries under the file's lock, which only a writer that does
// not take the lock (an editor saving by hand) can make fail again.
const maxAttempts = 4

// write makes one change of the user file: run applies it to a Tx and
// commits it; keys are the JSON paths (as key lists) the change writes —
// a server's entry, a setting.
//
// With o.IfVersion the change is made only on that version of the file,
// else a *ConflictError. Without, the change is based on the file as read
// here, and a change someone else committed before this one does not fail
// it: run is run again on the new file — holding the file's lock from the
// read to the commit, so that no other plughost can get in between — unless
// what was changed meanwhile is one of keys. That is a conflict: a
// *ConflictError naming the key, and nothing is written, so neither change
// silently undoes the other.
func (m *Manager) write(o WriteOptions, keys [][]string, run func(tx *Tx) error) error {
	tx, err := m.Begin()
	if err != nil {
		return err
	}
	if o.IfVersion != "" {
		if o.IfVersion != tx.Version() {
			return &ConflictError{File: tx.File()}
		}
		return run(tx)
	}
	base := tx.values(keys)
	err = run(tx)
	for attempt := 1; attempt < maxAttempts && overtaken(err); attempt++ {
		err = m.rerun(base, keys, run)
	}
	return err
}

// overtaken reports whether err says that the file changed between a
// write's read and its commit.
func overtaken(err error) bool {
	var ce *ConflictError
	return errors.As(err, &ce) && ce.Key == ""
}

// rerun runs a change again on the file as it is now, under the file's
// lock, unless one of keys no longer holds what base recorded.
func (m *Manager) rerun(base []string, keys [][]string, run func(tx *Tx) error) error {
	tx, err := m.beginLocked()
	if err != nil {
		return err
	}
	defer tx.unlock()
	for i, now := range tx.values(keys) {
		if now != base[i] {
			return &ConflictError{File: tx.File(), Key: config.JSONPath(keys[i]...)}
		}
	}
	return run(tx)
}

// values returns, for each of keys, the compact JSON the candidate holds
// there ("" for none, an error's text when the file cannot be read by key).
func (tx *Tx) values(keys [][]string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		raw, ok, err := jsonedit.Get(tx.data, k...)
		switch {
		case err != nil:
			out[i] = "error: " + err.Error()
		case ok:
			var b bytes.Buffer
			if json.Compact(&b, raw) != nil {
				b.Write(raw)
			}
			out[i] = "value: " + b.String()
		}
	}
	return out
}

// serverKeys returns the key list of each server's entry.
func serverKeys(names ...string) [][]string {
	out := make([][]string, len(names))
	for i, name := range names {
		out[i] = []string{"tools", "mcp", "servers", name}
	}
	return out
}
