package loglimit

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/internal/fakeclock"
)

func newTest(level hclog.Level) (hclog.Logger, *bytes.Buffer, *fakeclock.Clock) {
	var buf bytes.Buffer
	base := hclog.New(&hclog.LoggerOptions{Output: &buf, Level: level, DisableTime: true})
	c := fakeclock.New(time.Unix(1_000_000, 0))
	return New(base, Options{Burst: 3, Window: 10 * time.Second, Now: c.Now}), &buf, c
}

func lines(buf *bytes.Buffer) []string {
	s := strings.TrimSuffix(buf.String(), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// A flood of one message costs Burst lines per window plus one summary.
func TestFloodCollapses(t *testing.T) {
	l, buf, c := newTest(hclog.Info)
	srv := l.With("server", "flood")
	for i := range 1000 {
		srv.Info("tools changed", "tools", i)
	}
	want := []string{
		"[INFO]  tools changed: server=flood tools=0",
		"[INFO]  tools changed: server=flood tools=1",
		"[INFO]  tools changed: server=flood tools=2",
	}
	if diff := cmp.Diff(want, lines(buf)); diff != "" {
		t.Fatalf("first window (-want +got):\n%s", diff)
	}
	c.Advance(10 * time.Second)
	srv.Info("tools changed", "tools", 1000)
	want = append(want,
		"[INFO]  tools changed (997 similar messages suppressed): server=flood tools=999",
		"[INFO]  tools changed: server=flood tools=1000",
	)
	if diff := cmp.Diff(want, lines(buf)); diff != "" {
		t.Errorf("next window (-want +got):\n%s", diff)
	}
}

// Kinds are counted apart: another server, another message or another
// level passes while one kind is held back.
func TestKindsAreSeparate(t *testing.T) {
	l, buf, _ := newTest(hclog.Info)
	a, b := l.With("server", "a"), l.With("server", "b")
	for range 10 {
		a.Warn("failed", "error", "x")
	}
	b.Warn("failed", "error", "x")
	a.Warn("other message")
	a.Error("failed", "error", "x")
	l.Named("plugin").Warn("failed", "error", "x")
	got := lines(buf)
	if len(got) != 3+4 {
		t.Errorf("got %d lines, want 7:\n%s", len(got), buf)
	}
}

// A summary still pending when the flood stops is emitted by the next line
// of any kind once a window has passed, or by Flush.
func TestPendingSummary(t *testing.T) {
	l, buf, c := newTest(hclog.Info)
	for range 5 {
		l.Info("spam")
	}
	c.Advance(11 * time.Second)
	l.Info("something else")
	want := []string{"[INFO]  spam", "[INFO]  spam", "[INFO]  spam", "[INFO]  spam (2 similar messages suppressed)", "[INFO]  something else"}
	if diff := cmp.Diff(want, lines(buf)); diff != "" {
		t.Errorf("sweep (-want +got):\n%s", diff)
	}

	buf.Reset()
	for range 4 {
		l.Info("more spam")
	}
	Flush(l.Named("x")) // any derived logger flushes the shared counters
	Flush(l)
	want = []string{"[INFO]  more spam", "[INFO]  more spam", "[INFO]  more spam", "[INFO]  more spam (1 similar messages suppressed)"}
	if diff := cmp.Diff(want, lines(buf)); diff != "" {
		t.Errorf("flush (-want +got):\n%s", diff)
	}
}

// Lines below the wrapped logger's level are neither emitted nor counted.
func TestBelowLevelIgnored(t *testing.T) {
	l, buf, _ := newTest(hclog.Warn)
	for range 10 {
		l.Info("noise")
	}
	l.Warn("noise")
	if got := lines(buf); len(got) != 1 {
		t.Errorf("got %q, want the warning alone", got)
	}
}

// Debug and trace lines, once turned on, all pass.
func TestDebugNotLimited(t *testing.T) {
	l, buf, _ := newTest(hclog.Trace)
	for range 10 {
		l.Debug("tool call")
		l.Trace("message")
	}
	if got := lines(buf); len(got) != 20 {
		t.Errorf("got %d lines, want 20", len(got))
	}
}

// Concurrent use is safe (run with -race).
func TestConcurrent(t *testing.T) {
	l, buf, _ := newTest(hclog.Info)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			ll := l.With("worker", i)
			for range 100 {
				ll.Info("tick")
			}
		})
	}
	wg.Wait()
	if got := len(lines(buf)); got != 8*3 {
		t.Errorf("got %d lines, want %d", got, 8*3)
	}
}

// Unlimited gives back the wrapped logger, name and arguments kept.
func TestUnlimited(t *testing.T) {
	l, buf, _ := newTest(hclog.Info)
	u := Unlimited(l.Named("plugin").With("server", "s"))
	for range 10 {
		u.Info("message")
	}
	got := lines(buf)
	if len(got) != 10 || got[0] != "[INFO]  plugin: message: server=s" {
		t.Errorf("got %d lines, first %q; want 10 unlimited lines", len(got), got[0])
	}
	if plain := hclog.NewNullLogger(); Unlimited(plain) != plain {
		t.Errorf("a logger not made by New must come back as it is")
	}
}
