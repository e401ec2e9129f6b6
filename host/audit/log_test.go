package audit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/internal/ownertest"
)

// runLog starts l's writer; the returned func stops it and waits.
func runLog(t *testing.T, l *Log) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); l.Run(ctx) }()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return sync.OnceFunc(stop)
}

// lines returns every line of every file in dir, each parsed.
func lines(t *testing.T, dir string) []Record {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	var out []Record
	for _, n := range names {
		b, err := os.ReadFile(n) // nothing left open on Fatal: Windows could not remove it
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			var r Record
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("%s: line %q does not parse: %v", n, sc.Text(), err)
			}
			out = append(out, r)
		}
	}
	return out
}

type replace struct{ secret string }

func (r replace) Mask(s string) string { return strings.ReplaceAll(s, r.secret, "****") }

// A record is one line in the documented format, its strings masked, and
// is kept in memory, newest first.
func TestRecordLine(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "audit")
	l := New(Options{Dir: dir, MaxFileBytes: 1 << 20, MaxFiles: 2, Masker: replace{"s3cret"}})
	stop := runLog(t, l)
	at := time.Date(2026, 12, 4, 12, 0, 0, 123456789, time.FixedZone("x", 3600))
	l.Write(Record{Time: at, Client: "alice", Session: "id1", Server: "fs", Method: "resources/read",
		Name: "file:///s3cret/x", DurationMS: 1.5, Outcome: OK, BytesIn: 10, BytesOut: 20, ArgsSHA256: HashArgs([]byte("{}"))})
	l.Write(Record{Time: at, Client: "bob", Server: "git", Method: "tools/call", Name: "log", Outcome: RPCError, Code: -32602})
	stop()
	raw, err := os.ReadFile(filepath.Join(dir, currentName))
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(string(raw), "\n", 2)[0]
	want := `{"time":"2026-12-04T11:00:00.123Z","client":"alice","session":"id1","server":"fs","method":"resources/read",` +
		`"name":"file:///****/x","duration_ms":1.5,"outcome":"ok","bytes_in":10,"bytes_out":20,"args_sha256":"44136fa355b3678a"}`
	if first != want {
		t.Errorf("line:\n got %s\nwant %s", first, want)
	}
	if got := len(lines(t, dir)); got != 2 {
		t.Errorf("%d lines, want 2", got)
	}
	ownertest.Private(t, filepath.Join(dir, currentName))
	if runtime.GOOS != "windows" { // a Windows directory keeps the ACL it inherits
		if fi, err := os.Stat(dir); err != nil || fi.Mode() != 0o700|os.ModeDir {
			t.Errorf("%s: mode %v (%v), want %v", dir, fi.Mode(), err, 0o700|os.ModeDir)
		}
	}
	got := l.Recent(Filter{})
	if len(got) != 2 || got[0].Client != "bob" || got[1].Name != "file:///****/x" {
		t.Errorf("Recent: %+v", got)
	}
	if got := l.Recent(Filter{Client: "alice"}); len(got) != 1 || got[0].Server != "fs" {
		t.Errorf("Recent(client alice): %+v", got)
	}
	if got := l.Recent(Filter{Server: "git", Client: "alice"}); len(got) != 0 {
		t.Errorf("Recent(git, alice): %+v", got)
	}
	if s := l.Stats(); s != (Stats{Written: 2}) {
		t.Errorf("stats %+v", s)
	}
}

// Files rotate at the size bound and only max_files rotated ones stay.
func TestRotationBounded(t *testing.T) {
	dir := t.TempDir()
	l := New(Options{Dir: dir, MaxFileBytes: 2000, MaxFiles: 3})
	stop := runLog(t, l)
	const n = 500
	for i := range n {
		l.Write(Record{Time: time.Now(), Client: "c", Server: "s", Method: "tools/call", Name: "t", Outcome: OK, BytesIn: i})
		if i%10 == 9 { // keep batches small, so files rotate many times
			waitStats(t, l, func(s Stats) bool { return s.Written == int64(i+1) })
		}
	}
	stop()
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(names) != 4 {
		t.Errorf("files %v, want the current one and 3 rotated", names)
	}
	for _, name := range names {
		fi, _ := os.Stat(name)
		if fi.Size() > 2000+batchBytes {
			t.Errorf("%s: %d bytes", name, fi.Size())
		}
	}
	recs := lines(t, dir)
	if len(recs) == 0 || len(recs) >= n {
		t.Fatalf("%d lines kept of %d: rotation should have removed old ones", len(recs), n)
	}
	if last := recs[len(recs)-1]; last.BytesIn != n-1 {
		t.Errorf("the newest record (%d) is not last in the current file: %+v", n-1, last)
	}
}

// Write never waits for the disk: with no writer running, records beyond
// the queue are dropped and counted, and the writer reports them in the
// file once it runs.
func TestFullQueueDrops(t *testing.T) {
	dir := t.TempDir()
	l := New(Options{Dir: dir, MaxFileBytes: 1 << 20, MaxFiles: 1, Queue: 4, Recent: 3})
	for range 10 {
		l.Write(Record{Method: "tools/call", Outcome: OK})
	}
	if s := l.Stats(); s.Dropped != 6 {
		t.Errorf("stats %+v, want 6 dropped", s)
	}
	if got := len(l.Recent(Filter{})); got != 3 {
		t.Errorf("Recent kept %d, want 3", got)
	}
	runLog(t, l)()
	var dropped []int64
	for _, r := range lines(t, dir) {
		if r.Outcome == Dropped {
			dropped = append(dropped, r.Dropped)
		}
	}
	if diff := cmp.Diff([]int64{6}, dropped); diff != "" {
		t.Errorf("dropped lines (-want +got):\n%s", diff)
	}
}

// A directory that cannot be written loses records (counted), never
// fails or blocks the caller, and the log writes again once it can.
func TestDiskErrorCounted(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "audit")
	if err := os.WriteFile(dir, nil, 0o600); err != nil { // a file where the directory should be
		t.Fatal(err)
	}
	l := New(Options{Dir: dir, MaxFileBytes: 1 << 20, MaxFiles: 1})
	stop := runLog(t, l)
	l.Write(Record{Method: "tools/call", Outcome: OK})
	waitStats(t, l, func(s Stats) bool { return s.Failed == 1 })
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	l.Write(Record{Method: "tools/call", Outcome: OK})
	waitStats(t, l, func(s Stats) bool { return s.Written == 1 })
	stop()
	if got := len(lines(t, dir)); got != 1 {
		t.Errorf("%d lines, want 1", got)
	}
}

func waitStats(t *testing.T, l *Log, ok func(Stats) bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if ok(l.Stats()) {
			return
		}
	}
	t.Fatalf("stats %+v", l.Stats())
}

// Rotated names order by time, then by their same-millisecond number.
func TestCompareRotated(t *testing.T) {
	names := []string{"audit-20261204T120000.001Z.jsonl", "audit-20261204T120000.000Z-10.jsonl",
		"audit-20261204T120000.000Z-2.jsonl", "audit-20261204T120000.000Z.jsonl"}
	dir := t.TempDir()
	for _, n := range names {
		os.WriteFile(filepath.Join(dir, n), nil, 0o600)
	}
	got, err := rotatedFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"audit-20261204T120000.000Z.jsonl", "audit-20261204T120000.000Z-2.jsonl",
		"audit-20261204T120000.000Z-10.jsonl", "audit-20261204T120000.001Z.jsonl"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// Two logs on one directory (serve and plughost stdio) keep every line
// whole and the files bounded.
func TestSharedDirectory(t *testing.T) {
	dir := t.TempDir()
	a := New(Options{Dir: dir, MaxFileBytes: 4000, MaxFiles: 2})
	b := New(Options{Dir: dir, MaxFileBytes: 4000, MaxFiles: 2})
	stopA, stopB := runLog(t, a), runLog(t, b)
	for i := range 400 {
		a.Write(Record{Method: "tools/call", Name: "a", Outcome: OK, BytesIn: i})
		b.Write(Record{Method: "tools/call", Name: "b", Outcome: OK, BytesIn: i})
		if i%10 == 9 {
			waitStats(t, a, func(s Stats) bool { return s.Written == int64(i+1) })
			waitStats(t, b, func(s Stats) bool { return s.Written == int64(i+1) })
		}
	}
	stopA()
	stopB()
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(names) > 3 {
		t.Errorf("files %v: want at most the current one and 2 rotated", names)
	}
	for _, name := range names {
		// Each log counts only its own writes: a file may take both logs'
		// lines past the bound, never much more.
		if fi, _ := os.Stat(name); fi.Size() > 2*4000+1500 {
			t.Errorf("%s: %d bytes", name, fi.Size())
		}
	}
	lines(t, dir) // every line parses
}

// After a write the writer lets records gather for Options.Gather, so a
// steady stream of calls costs one write per window; the first record after
// a quiet spell goes out at once, and stopping writes what gathered.
func TestRecordsGatherBetweenWrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "audit")
	l := New(Options{Dir: dir, MaxFileBytes: 1 << 20, MaxFiles: 2, Gather: time.Minute})
	stop := runLog(t, l)
	l.Write(Record{Time: time.Now(), Server: "fs", Method: "tools/call", Name: "first", Outcome: OK})
	deadline := time.Now().Add(10 * time.Second)
	for len(lines(t, dir)) < 1 {
		if time.Now().After(deadline) {
			t.Fatal("the first record was not written at once")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for i := range 5 {
		l.Write(Record{Time: time.Now(), Server: "fs", Method: "tools/call", Name: fmt.Sprint("next ", i), Outcome: OK})
	}
	time.Sleep(100 * time.Millisecond)
	if got := len(lines(t, dir)); got != 1 {
		t.Fatalf("%d lines within the minute of gathering, want only the first", got)
	}
	if got := l.Stats().Written; got != 1 {
		t.Fatalf("Stats.Written %d while gathering, want 1", got)
	}
	stop()
	if got := len(lines(t, dir)); got != 6 {
		t.Fatalf("%d lines after stopping, want all 6", got)
	}
}
