package secret

import (
	"fmt"
	"io"
	"log"
	"time"

	"github.com/hashicorp/go-hclog"
)

// Logger returns l with every message and argument passed through m before
// it is written, and every logger derived from it (With, Named, the standard
// logger adapters) likewise: the last line of defence for log output, which
// also carries what plugins and servers log.
func (m *Masker) Logger(l hclog.Logger) hclog.Logger {
	if l == nil {
		l = hclog.NewNullLogger()
	}
	return &maskLogger{Logger: l, m: m}
}

type maskLogger struct {
	hclog.Logger
	m *Masker
}

// Log masks msg and args and logs them.
func (l *maskLogger) Log(level hclog.Level, msg string, args ...any) {
	if level < l.Logger.GetLevel() {
		return // dropped anyway: spare the masking
	}
	l.Logger.Log(level, l.m.Mask(msg), l.args(args)...)
}

// Trace logs at trace level, masked.
func (l *maskLogger) Trace(msg string, args ...any) { l.Log(hclog.Trace, msg, args...) }

// Debug logs at debug level, masked.
func (l *maskLogger) Debug(msg string, args ...any) { l.Log(hclog.Debug, msg, args...) }

// Info logs at info level, masked.
func (l *maskLogger) Info(msg string, args ...any) { l.Log(hclog.Info, msg, args...) }

// Warn logs at warn level, masked.
func (l *maskLogger) Warn(msg string, args ...any) { l.Log(hclog.Warn, msg, args...) }

// Error logs at error level, masked.
func (l *maskLogger) Error(msg string, args ...any) { l.Log(hclog.Error, msg, args...) }

// With returns a masking logger with more implied arguments (masked).
func (l *maskLogger) With(args ...any) hclog.Logger {
	return &maskLogger{Logger: l.Logger.With(l.args(args)...), m: l.m}
}

// Named returns a masking logger with a sub-name.
func (l *maskLogger) Named(name string) hclog.Logger {
	return &maskLogger{Logger: l.Logger.Named(name), m: l.m}
}

// ResetNamed returns a masking logger with a new name.
func (l *maskLogger) ResetNamed(name string) hclog.Logger {
	return &maskLogger{Logger: l.Logger.ResetNamed(name), m: l.m}
}

// StandardLogger returns a standard logger whose lines are masked.
func (l *maskLogger) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(l.StandardWriter(opts), "", 0)
}

// StandardWriter returns a writer whose lines are masked.
func (l *maskLogger) StandardWriter(opts *hclog.StandardLoggerOptions) io.Writer {
	if opts == nil {
		opts = &hclog.StandardLoggerOptions{}
	}
	return &maskWriter{w: l.Logger.StandardWriter(opts), m: l.m}
}

// args masks log arguments. Numbers, booleans and times are kept as they
// are; anything else that prints differently once masked is replaced by its
// masked text.
func (l *maskLogger) args(args []any) []any {
	if len(args) == 0 {
		return args
	}
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = l.arg(a)
	}
	return out
}

func (l *maskLogger) arg(a any) any {
	switch v := a.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
		float32, float64, time.Duration, time.Time, hclog.Level:
		return a
	case string:
		return l.m.Mask(v)
	case error:
		return l.m.Mask(v.Error())
	case fmt.Stringer:
		return l.m.Mask(v.String())
	case []string:
		return l.m.MaskAll(v)
	case hclog.Format:
		if len(v) > 0 {
			if f, ok := v[0].(string); ok {
				return l.m.Mask(fmt.Sprintf(f, v[1:]...))
			}
		}
	}
	text := fmt.Sprintf("%+v", a)
	if masked := l.m.Mask(text); masked != text {
		return masked
	}
	return a
}

// maskWriter masks what a standard logger writes (one line per Write).
type maskWriter struct {
	w io.Writer
	m *Masker
}

// Write masks p and writes it whole.
func (w *maskWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.w, w.m.Mask(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
