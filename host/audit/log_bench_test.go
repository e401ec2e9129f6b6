package audit

import (
	"context"
	"testing"
	"time"
)

// BenchmarkWrite is what a call pays for its record: masking, the
// in-memory ring and the queue (the file is written by Run meanwhile).
func BenchmarkWrite(b *testing.B) {
	l := New(Options{Dir: b.TempDir(), MaxFileBytes: 10 << 20, MaxFiles: 2, Masker: replace{"s3cret"}})
	t := &testing.T{}
	stop := runLog(t, l)
	r := Record{Time: time.Now(), Client: "admin", Session: "x_jjBeLUOHsGh9Ud-aOKrg", Server: "fs", Method: "tools/call",
		Name: "read_text_file", DurationMS: 1.234, Outcome: OK, BytesIn: 120, BytesOut: 4096, ArgsSHA256: HashArgs([]byte(`{"path":"/tmp/x"}`))}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			l.Write(r)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				l.Write(r)
			}
		})
	})
	stop()
	b.Logf("%+v", l.Stats())
}

// BenchmarkHashArgs is the hash of a call's arguments, made on the call's
// path.
func BenchmarkHashArgs(b *testing.B) {
	args := []byte(`{"path":"/home/user/project/src/main.go","head":200,"encoding":"utf-8"}`)
	b.ReportAllocs()
	for b.Loop() {
		HashArgs(args)
	}
}

// BenchmarkRun is the writer's side: encoding records and writing them
// out in batches (what bounds how many records per second the log keeps
// up with).
func BenchmarkRun(b *testing.B) {
	l := New(Options{Dir: b.TempDir(), MaxFileBytes: 10 << 20, MaxFiles: 2, Queue: b.N + 1})
	r := Record{Time: time.Now(), Client: "admin", Session: "x_jjBeLUOHsGh9Ud-aOKrg", Server: "fs", Method: "tools/call",
		Name: "read_text_file", DurationMS: 1.234, Outcome: OK, BytesIn: 120, BytesOut: 4096, ArgsSHA256: HashArgs([]byte(`{"path":"/tmp/x"}`))}
	for range b.N {
		l.Write(r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Run writes what is queued, then returns
	b.ResetTimer()
	l.Run(ctx)
	b.StopTimer()
	if s := l.Stats(); s.Written != int64(b.N) {
		b.Fatalf("%+v, want %d written", s, b.N)
	}
}
