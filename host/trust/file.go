package trust

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sync"

	"github.com/plughost/plughost/lib/atomicfile"
)

// fileVersion is the version of the pins file's format this package reads
// and writes.
const fileVersion = 1

// fileContent is the pins file: {"version": 1, "servers": {name: record}}.
type fileContent struct {
	Version int               `json:"version"`
	Servers map[string]Record `json:"servers"`
}

// FileStore keeps the records in one JSON file, shared by every plughost
// process of the user: a write takes an advisory lock on a sibling file
// (<file>.lock), reads the file, merges and replaces the file atomically
// (a temporary file in the same directory, fsynced, renamed; mode 0600).
// A reader needs no lock: it sees the file before or after a write. A file
// that is not valid is reported, never overwritten. Safe for concurrent
// use, also by several processes.
type FileStore struct {
	path string
	// mu queues this process's writers before the file lock, which they
	// would otherwise poll for.
	mu sync.Mutex
	// opened holds each server's record, encoded, as the file had it at
	// OpenFile: what a watch compares the file with first.
	opened map[string]string
}

var _ Store = (*FileStore)(nil)

// DefaultPath returns where plughost keeps the pins of a user whose home
// directory is home: ~/.plughost/pins.json, next to the config file.
func DefaultPath(home string) string {
	return filepath.Join(home, ".plughost", "pins.json")
}

// OpenFile returns the store kept in the file at path (a symlink is
// followed, so a pins file kept elsewhere stays a link). The file need not
// exist: the first Pin creates it, and its directory (mode 0700). A file
// that is not valid is not an error here, but of every Load and Pin until
// it is fixed.
func OpenFile(path string) (*FileStore, error) {
	if path == "" {
		return nil, errors.New("open pins file: no path (set HOME)")
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	abs, err := filepath.Abs(path) // a watch must not depend on the working directory
	if err != nil {
		return nil, fmt.Errorf("open pins file %s: %w", path, err)
	}
	f := &FileStore{path: abs}
	if records, err := f.read(); err == nil {
		f.opened = encodeRecords(records)
	}
	return f, nil
}

// Load implements Store.
func (f *FileStore) Load(ctx context.Context, server string) (Record, bool, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, false, fmt.Errorf("load pins of server %q: %w", server, err)
	}
	records, err := f.read()
	if err != nil {
		return Record{}, false, fmt.Errorf("load pins of server %q: %w", server, err)
	}
	rec, ok := records[server]
	return rec, ok, nil
}

// Pin implements Store: under the file's lock it reads the file, merges
// pins into server's record and replaces the file.
func (f *FileStore) Pin(ctx context.Context, server string, pins map[string]Pin) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return fmt.Errorf("pin tools of server %q: create the pins file's directory: %w", server, err)
	}
	unlock, err := lockFile(ctx, f.path+".lock")
	if err != nil {
		return fmt.Errorf("pin tools of server %q: %w", server, err)
	}
	defer unlock()
	records, err := f.read()
	if err != nil {
		return fmt.Errorf("pin tools of server %q: %w", server, err)
	}
	records[server] = records[server].Merge(pins)
	data, err := encodeFile(records)
	if err != nil {
		return fmt.Errorf("pin tools of server %q: %w", server, err)
	}
	atomicfile.RemoveLeftovers(f.path)
	if err := atomicfile.Write(f.path, data); err != nil {
		return fmt.Errorf("pin tools of server %q: %w", server, err)
	}
	return nil
}

// read returns the records the file holds now; none when it is missing.
func (f *FileStore) read() (map[string]Record, error) {
	data, err := f.readBytes()
	if err != nil {
		return nil, err
	}
	return decodeFile(f.path, data)
}

// readBytes returns the file's content; nil when it is missing.
func (f *FileStore) readBytes() ([]byte, error) {
	data, err := atomicfile.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read pins file: %w", err)
	}
	return data, nil
}

// decodeFile reads the content of the pins file at path. An empty file
// holds no pins.
func decodeFile(path string, data []byte) (map[string]Record, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]Record{}, nil
	}
	var c fileContent
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, malformed(path, describeJSONError(data, err))
	}
	switch {
	case c.Version == 0:
		return nil, malformed(path, `it has no "version"`)
	case c.Version != fileVersion:
		return nil, fmt.Errorf("pins file %s has version %d, and this plughost reads version %d: it was written by a newer plughost, which must be used with it (nothing was written)", path, c.Version, fileVersion)
	}
	if c.Servers == nil {
		c.Servers = map[string]Record{}
	}
	for server, rec := range c.Servers {
		compactRecord(&rec)
		c.Servers[server] = rec
	}
	return c.Servers, nil
}

// compactRecord makes rec's definitions compact (the file is indented) and
// its tool map non-nil. A definition decoded from JSON is valid JSON, so
// compacting it cannot fail.
func compactRecord(rec *Record) {
	if rec.Tools == nil {
		rec.Tools = map[string]Pin{}
	}
	for name, p := range rec.Tools {
		var b bytes.Buffer
		if len(p.Definition) > 0 && json.Compact(&b, p.Definition) == nil {
			p.Definition = b.Bytes()
			rec.Tools[name] = p
		}
	}
}

// malformed is the error for a pins file that is not what plughost wrote:
// it names the file and the problem and says how to get out of it.
func malformed(path, problem string) error {
	return fmt.Errorf("pins file %s is not valid: %s. Nothing was written to it; "+
		`fix it by hand (the format is {"version": 1, "servers": {"<server>": {"tools": {"<tool>": {"digest": …, "definition": …, "at": …, "by": …}}}}}), `+
		"or move it aside to start over, at the price of every approval: each server's tools are then pinned again, unreviewed, at their next list", path, problem)
}

// describeJSONError says where in data the JSON problem err is.
func describeJSONError(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, syn.Offset-1) // Offset is past the culprit
		return fmt.Sprintf("invalid JSON at line %d, column %d: %v", line, col, syn)
	case errors.As(err, &typ):
		line, col := position(data, typ.Offset)
		where := typ.Field
		if where == "" {
			where = "the top level"
		}
		return fmt.Sprintf("near line %d, column %d (%s): a JSON %s where %s belongs", line, col, where, typ.Value, jsonKindOf(typ.Type))
	}
	return err.Error()
}

// jsonKindOf names the JSON type that decodes into a value of type t.
func jsonKindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	}
	return "a number"
}

// position returns the 1-based line and column of byte offset in data.
func position(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	return line, len(before) - bytes.LastIndexByte(before, '\n')
}

// encodeFile returns the content of the pins file holding records,
// indented for the humans who read it; strings are not HTML-escaped.
func encodeFile(records map[string]Record) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(fileContent{Version: fileVersion, Servers: records}); err != nil {
		return nil, fmt.Errorf("encode pins file: %w", err)
	}
	return b.Bytes(), nil
}

// encodeRecords returns each record's JSON, to compare two versions of the
// file server by server.
func encodeRecords(records map[string]Record) map[string]string {
	out := make(map[string]string, len(records))
	for server, rec := range records {
		b, err := json.Marshal(rec)
		if err != nil { // a record decoded from JSON encodes; mark it changed if not
			b = nil
		}
		out[server] = string(b)
	}
	return out
}
