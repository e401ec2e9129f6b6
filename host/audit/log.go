package audit

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
)

// Defaults of Options.
const (
	// DefaultQueue is how many records may wait to be written.
	DefaultQueue = 4096
	// DefaultRecent is how many records Recent keeps.
	DefaultRecent = 1000
	// DefaultGather is how long Run lets records gather after a write
	// before the next one.
	DefaultGather = 10 * time.Millisecond
)

// batchBytes bounds the lines Run gathers into one write.
const batchBytes = 64 << 10

// Masker hides secret values in a string (config's masker, *secret.Masker).
type Masker interface {
	Mask(text string) string
}

// Options configure a Log.
type Options struct {
	// Dir is the directory of the log files; "" keeps records in memory
	// only (Recent).
	Dir string
	// MaxFileBytes rotates the current file before a write would take it
	// over this size; MaxFiles is how many rotated files are kept. On disk
	// the log takes at most (MaxFiles+1) × MaxFileBytes (and a batch).
	MaxFileBytes int64
	MaxFiles     int
	// Masker masks every string of a record as it is written; nil masks
	// nothing.
	Masker Masker
	// Logger gets the log's own problems (a disk error, once until the
	// disk works again; dropped records); nil discards them.
	Logger hclog.Logger
	// Queue is how many records may wait for the writer (DefaultQueue if
	// 0); Recent how many the log keeps in memory (DefaultRecent if 0).
	Queue, Recent int
	// Gather is how long Run waits after a write before the next one, so
	// that a steady stream of calls costs one write per Gather rather than
	// one per call (DefaultGather if 0; below 0 writes at once). The
	// first record after a quiet spell is written at once. A plughost
	// killed meanwhile loses what gathered.
	Gather time.Duration
}

// Stats count what a Log did since it was made.
type Stats struct {
	// Written records reached the file.
	Written int64 `json:"written"`
	// Dropped records were lost because the queue was full.
	Dropped int64 `json:"dropped"`
	// Failed records were lost to a disk error.
	Failed int64 `json:"failed"`
}

// Log is the audit log. Write never blocks; Run writes the records out.
// Safe for concurrent use.
type Log struct {
	o      Options
	queue  chan Record
	recent ring

	written, dropped, failed atomic.Int64
}

// New returns a log writing to o.Dir once Run runs. Nothing is opened
// until the first record is written.
func New(o Options) *Log {
	if o.Queue <= 0 {
		o.Queue = DefaultQueue
	}
	if o.Recent <= 0 {
		o.Recent = DefaultRecent
	}
	if o.Gather == 0 {
		o.Gather = DefaultGather
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	l := &Log{o: o, recent: ring{buf: make([]Record, o.Recent)}}
	if o.Dir != "" {
		l.queue = make(chan Record, o.Queue)
	}
	return l
}

// Dir returns the directory of the log files ("" for memory only).
func (l *Log) Dir() string { return l.o.Dir }

// Write records r, its strings masked: kept in memory at once, queued for
// the file. A full queue drops the record for the file (Stats.Dropped).
func (l *Log) Write(r Record) {
	r = l.mask(r)
	l.recent.add(r)
	if l.queue == nil {
		return
	}
	select {
	case l.queue <- r:
	default:
		l.dropped.Add(1)
	}
}

func (l *Log) mask(r Record) Record {
	if m := l.o.Masker; m != nil {
		r.Client, r.Server, r.Method, r.Name = m.Mask(r.Client), m.Mask(r.Server), m.Mask(r.Method), m.Mask(r.Name)
	}
	return r
}

// Stats returns the counts so far.
func (l *Log) Stats() Stats {
	return Stats{Written: l.written.Load(), Dropped: l.dropped.Load(), Failed: l.failed.Load()}
}

// Run writes queued records to the files until ctx ends, then writes what
// is still queued and closes the file. Records written after Run returned
// stay in memory only (and count as dropped once the queue is full).
func (l *Log) Run(ctx context.Context) {
	if l.queue == nil {
		return
	}
	w := writer{log: l, rot: rotator{dir: l.o.Dir, maxBytes: l.o.MaxFileBytes, keep: l.o.MaxFiles}}
	defer w.rot.close()
	drain := func() {
		for {
			select {
			case r := <-l.queue:
				w.batch(r)
			default:
				return
			}
		}
	}
	gather := time.NewTimer(time.Hour)
	gather.Stop()
	for {
		select {
		case r := <-l.queue:
			w.batch(r)
		case <-ctx.Done():
			drain()
			return
		}
		if l.o.Gather <= 0 || len(l.queue) > 0 {
			continue // more than one batch waits: write it at once
		}
		gather.Reset(l.o.Gather)
		select {
		case <-gather.C:
		case <-ctx.Done():
			drain()
			return
		}
	}
}

// writer is Run's state.
type writer struct {
	log      *Log
	rot      rotator
	buf      []byte
	reported int64 // drops reported in the file so far
	failing  bool  // the last write failed (logged once)
}

// batch writes r and whatever else is queued, up to batchBytes, in one
// write, after a line reporting new drops.
func (w *writer) batch(r Record) {
	l := w.log
	w.buf = w.buf[:0]
	if d := l.dropped.Load(); d > w.reported {
		w.append(Record{Time: time.Now(), Method: "plughost/audit", Outcome: Dropped, Dropped: d - w.reported})
		l.o.Logger.Warn("audit log: records dropped, the writer could not keep up", "dropped", d-w.reported, "total", d)
		w.reported = d
	}
	n := int64(1)
	w.append(r)
	for more := true; more && len(w.buf) < batchBytes; {
		select {
		case r := <-l.queue:
			w.append(r)
			n++
		default:
			more = false
		}
	}
	w.write(n)
}

func (w *writer) append(r Record) {
	w.buf = append(r.appendJSON(w.buf), '\n')
}

// write writes the batch of n records; a failure is logged when the disk
// starts failing and when it works again, not per batch.
func (w *writer) write(n int64) {
	l := w.log
	if err := w.rot.write(w.buf, time.Now()); err != nil {
		l.failed.Add(n)
		if !w.failing {
			l.o.Logger.Error("audit log: cannot write; records are kept in memory only until it works again", "dir", l.o.Dir, "error", err)
			w.failing = true
		}
		return
	}
	l.written.Add(n)
	if w.failing {
		l.o.Logger.Info("audit log: writing again", "dir", l.o.Dir, "lost", l.failed.Load())
		w.failing = false
	}
}

// Filter picks records for Recent; an empty field matches every record.
type Filter struct {
	Server, Client string
	// Limit is the most records returned (every kept one if 0).
	Limit int
}

// Recent returns the kept records that match f, newest first.
func (l *Log) Recent(f Filter) []Record {
	return l.recent.newest(f)
}

// ring keeps the newest records.
type ring struct {
	mu   sync.Mutex
	buf  []Record
	next int // where the next record goes
	full bool
}

func (g *ring) add(r Record) {
	g.mu.Lock()
	g.buf[g.next] = r
	g.next++
	if g.next == len(g.buf) {
		g.next, g.full = 0, true
	}
	g.mu.Unlock()
}

func (g *ring) newest(f Filter) []Record {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := g.next
	if g.full {
		n = len(g.buf)
	}
	var out []Record
	for i := range n {
		r := g.buf[(g.next-1-i+len(g.buf))%len(g.buf)]
		if (f.Server == "" || r.Server == f.Server) && (f.Client == "" || r.Client == f.Client) {
			out = append(out, r)
			if f.Limit > 0 && len(out) == f.Limit {
				break
			}
		}
	}
	return out
}
