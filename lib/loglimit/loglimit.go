// Package loglimit keeps a misbehaving server from flooding the log: it wraps
// an hclog.Logger and lets through at most a few lines of the same kind per
// time window, then reports how many it held back.
//
// Lines are of the same kind when they have the same logger name, implied
// arguments (With: e.g. the server), level and message; their other
// arguments may differ. Lines at info level and above are limited (debug
// and trace are asked for, line by line). The first Burst lines of a kind in
// a Window pass;
// the rest are counted. When the window has ended, the next line of that
// kind, or any line at all once a window has gone by, first emits one line
// with the message and "(N similar messages suppressed)" and the arguments
// of the last suppressed line. Flush emits what is still pending (call it
// at shutdown). No goroutine is involved. Unlimited gives back the wrapped
// logger for output that must not be limited.
package loglimit

import (
	"fmt"
	"io"
	"log"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// Defaults of Options.
const (
	// DefaultBurst is how many lines of one kind pass per window.
	DefaultBurst = 5
	// DefaultWindow is the length of a window.
	DefaultWindow = 10 * time.Second
	// DefaultMaxKinds caps the kinds tracked at once; lines of further
	// kinds pass unlimited until windows end.
	DefaultMaxKinds = 1000
)

// Options configure a limited logger. Zero fields take the defaults.
type Options struct {
	// Burst is how many lines of one kind pass per Window.
	Burst int
	// Window is the length of a window.
	Window time.Duration
	// MaxKinds caps the kinds tracked at once.
	MaxKinds int
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Burst <= 0 {
		o.Burst = DefaultBurst
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.MaxKinds <= 0 {
		o.MaxKinds = DefaultMaxKinds
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// New returns l limited by o. The result and every logger derived from it
// (With, Named) share one set of counters. It is safe for concurrent use.
func New(l hclog.Logger, o Options) hclog.Logger {
	if l == nil {
		l = hclog.NewNullLogger()
	}
	return &logger{Logger: l, lim: &limiter{opts: o.withDefaults(), kinds: map[string]*kind{}}}
}

// Unlimited returns the logger l wraps, with the same name and implied
// arguments, if l was made by New; otherwise l itself. Use it for output the
// host relays rather than writes, such as a plugin's own log, whose volume
// is the plugin's (and its log level's) business.
func Unlimited(l hclog.Logger) hclog.Logger {
	if ll, ok := l.(*logger); ok {
		return ll.Logger
	}
	return l
}

// Flush emits the pending "similar messages suppressed" lines of l, if l
// was made by New; otherwise it does nothing.
func Flush(l hclog.Logger) {
	if ll, ok := l.(*logger); ok {
		ll.lim.flush()
	}
}

// logger is one view (name, implied arguments) on a shared limiter.
type logger struct {
	hclog.Logger // the wrapped logger, with this view's name and arguments
	lim          *limiter
	prefix       string // name and implied arguments: part of every kind's key
}

// Log emits msg unless too many lines of its kind were emitted lately.
// Debug and trace lines are not limited: whoever turns them on asks for
// every one (e.g. one line per tool call).
func (l *logger) Log(level hclog.Level, msg string, args ...any) {
	if level < l.Logger.GetLevel() {
		return // the wrapped logger would drop it anyway
	}
	if level < hclog.Info || l.lim.allow(l.Logger, l.prefix, level, msg, args) {
		l.Logger.Log(level, msg, args...)
	}
}

// Trace logs at trace level, limited.
func (l *logger) Trace(msg string, args ...any) { l.Log(hclog.Trace, msg, args...) }

// Debug logs at debug level, limited.
func (l *logger) Debug(msg string, args ...any) { l.Log(hclog.Debug, msg, args...) }

// Info logs at info level, limited.
func (l *logger) Info(msg string, args ...any) { l.Log(hclog.Info, msg, args...) }

// Warn logs at warn level, limited.
func (l *logger) Warn(msg string, args ...any) { l.Log(hclog.Warn, msg, args...) }

// Error logs at error level, limited.
func (l *logger) Error(msg string, args ...any) { l.Log(hclog.Error, msg, args...) }

// With returns a limited logger with more implied arguments.
func (l *logger) With(args ...any) hclog.Logger {
	return &logger{Logger: l.Logger.With(args...), lim: l.lim, prefix: l.prefix + fmt.Sprint(args...) + "\x00"}
}

// Named returns a limited logger with a sub-name.
func (l *logger) Named(name string) hclog.Logger {
	return &logger{Logger: l.Logger.Named(name), lim: l.lim, prefix: l.prefix + "/" + name + "\x00"}
}

// ResetNamed returns a limited logger with a new name.
func (l *logger) ResetNamed(name string) hclog.Logger {
	return &logger{Logger: l.Logger.ResetNamed(name), lim: l.lim, prefix: name + "\x00"}
}

// StandardLogger returns a standard logger writing to the wrapped logger
// (not limited: standard loggers are for libraries that log rarely).
func (l *logger) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return l.Logger.StandardLogger(opts)
}

// StandardWriter returns the wrapped logger's writer (not limited).
func (l *logger) StandardWriter(opts *hclog.StandardLoggerOptions) io.Writer {
	return l.Logger.StandardWriter(opts)
}

// limiter holds the counters shared by a logger and those derived from it.
type limiter struct {
	opts Options

	mu        sync.Mutex
	kinds     map[string]*kind
	lastSweep time.Time
}

// kind is one kind of line in its current window.
type kind struct {
	start      time.Time
	emitted    int
	suppressed int
	// what the summary line is emitted with
	to    hclog.Logger
	level hclog.Level
	msg   string
	args  []any
}

// allow reports whether a line may be emitted now. It emits due summaries
// (through the wrapped loggers, after unlocking) first.
func (lim *limiter) allow(to hclog.Logger, prefix string, level hclog.Level, msg string, args []any) bool {
	now := lim.opts.Now()
	key := prefix + level.String() + "\x00" + msg
	lim.mu.Lock()
	due := lim.sweep(now)
	k, ok := lim.kinds[key]
	if ok && now.Sub(k.start) >= lim.opts.Window {
		due = append(due, lim.end(key, k)...)
		ok = false
	}
	pass := true
	switch {
	case ok && k.emitted < lim.opts.Burst:
		k.emitted++
	case ok:
		k.suppressed++
		k.to, k.args = to, args
		pass = false
	case len(lim.kinds) < lim.opts.MaxKinds:
		lim.kinds[key] = &kind{start: now, emitted: 1, level: level, msg: msg}
	}
	lim.mu.Unlock()
	emit(due)
	return pass
}

// sweep ends, once per window, every kind whose window is over, returning
// their summaries. Called with mu held.
func (lim *limiter) sweep(now time.Time) []*kind {
	if now.Sub(lim.lastSweep) < lim.opts.Window {
		return nil
	}
	lim.lastSweep = now
	var due []*kind
	for key, k := range lim.kinds {
		if now.Sub(k.start) >= lim.opts.Window {
			due = append(due, lim.end(key, k)...)
		}
	}
	return due
}

// end forgets a kind and returns it if it has a summary to emit. Called
// with mu held.
func (lim *limiter) end(key string, k *kind) []*kind {
	delete(lim.kinds, key)
	if k.suppressed == 0 {
		return nil
	}
	return []*kind{k}
}

func (lim *limiter) flush() {
	lim.mu.Lock()
	var due []*kind
	for key, k := range lim.kinds {
		due = append(due, lim.end(key, k)...)
	}
	lim.mu.Unlock()
	emit(due)
}

// emit writes the summary line of each kind.
func emit(due []*kind) {
	for _, k := range due {
		k.to.Log(k.level, fmt.Sprintf("%s (%d similar messages suppressed)", k.msg, k.suppressed), k.args...)
	}
}
