package chat

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/lib/termsafe"
)

// JSONLines writes events as JSON, one per line, every line passed
// through the masker first and its C1 controls escaped (termsafe.JSON: the
// encoder leaves them raw, and some terminals act on them); streamed text pieces (delta events) are left
// out, the round's whole text follows as a text event. Safe for concurrent
// use.
type JSONLines struct {
	mu     sync.Mutex
	w      io.Writer
	masker *secret.Masker
	err    error
}

var _ Observer = (*JSONLines)(nil)

// NewJSONLines writes events to w, masked by m.
func NewJSONLines(w io.Writer, m *secret.Masker) *JSONLines {
	return &JSONLines{w: w, masker: m}
}

// Observe writes e.
func (j *JSONLines) Observe(e Event) {
	if e.Type == EventDelta {
		return
	}
	b, err := json.Marshal(e)
	if err != nil {
		return // every field is plain data: cannot happen
	}
	line := string(termsafe.JSON([]byte(j.masker.Mask(string(b))))) + "\n"
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := io.WriteString(j.w, line); err != nil && j.err == nil {
		j.err = err
	}
}

// Err returns the first write error.
func (j *JSONLines) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// Transcript is a chat's JSONL file: every event, as --json prints them.
type Transcript struct {
	*JSONLines
	// Path is the file's path.
	Path string
	f    *os.File
}

var _ Observer = Transcript{}

// OpenTranscript creates the transcript file: path itself, or, when path
// is a directory (created 0700 if missing), a new file in it named after
// the time. The file is 0600: a chat can quote what tools returned.
func OpenTranscript(path string, m *secret.Masker) (*Transcript, error) {
	if fi, err := os.Stat(path); (err == nil && fi.IsDir()) || (os.IsNotExist(err) && filepath.Ext(path) == "") {
		if err := os.MkdirAll(path, 0o700); err != nil {
			return nil, fmt.Errorf("transcript directory: %w", err)
		}
		path = filepath.Join(path, transcriptName(time.Now()))
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	return &Transcript{JSONLines: NewJSONLines(f, m), Path: path, f: f}, nil
}

// transcriptName is a new transcript's file name: the time, then random
// characters so that two chats started in one second differ.
func transcriptName(t time.Time) string {
	b := make([]byte, 3)
	_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
	return t.Format("20060102-150405") + "-" + hex.EncodeToString(b) + ".jsonl"
}

// Close closes the file.
func (t *Transcript) Close() error {
	if err := t.f.Close(); err != nil {
		return err
	}
	return t.Err()
}
