package artifacts

import (
	"fmt"
	"regexp/syntax"
	"time"
)

// Default bounds of one search_files call.
const (
	// DefaultSearchTimeout bounds how long one search runs.
	DefaultSearchTimeout = 10 * time.Second
	// DefaultSearchMaxBytes bounds how many bytes one search reads.
	DefaultSearchMaxBytes = 256 << 20
)

// Bounds of a search pattern's complexity. RE2 runs in time linear in the
// input, but the factor is the size of the compiled pattern, and counted
// repetition copies its operand: `(.*){1000}x` is 4,000 instructions and
// takes about 20 s per megabyte.
const (
	// MaxRepeatCount is the largest count a {n,m} repetition may use.
	MaxRepeatCount = 100
	// MaxPatternRepeats is the most repetition operators (*, +, ?, {n,})
	// a pattern may hold once counted repetitions are written out.
	MaxPatternRepeats = 20
	// MaxPatternInsts is the largest compiled pattern, in instructions.
	MaxPatternInsts = 1000
)

// SearchLimits bound each search_files call. A search that reaches one
// stops and returns what it found so far with a note saying why it stopped.
type SearchLimits struct {
	// Timeout bounds the time one search runs (0: DefaultSearchTimeout).
	Timeout time.Duration
	// MaxBytes bounds the bytes one search reads (0: DefaultSearchMaxBytes).
	MaxBytes int64
}

// withDefaults fills the zero fields.
func (l SearchLimits) withDefaults() SearchLimits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultSearchTimeout
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultSearchMaxBytes
	}
	return l
}

// Option configures a Store.
type Option func(*Store)

// WithSearchLimits sets the bounds of search_files; zero fields keep their
// defaults.
func WithSearchLimits(l SearchLimits) Option {
	return func(s *Store) { s.search = l.withDefaults() }
}

// checkComplexity rejects a pattern whose matching cost would be out of
// proportion to the input: a huge counted repetition, too many repetitions
// once those are written out (nested repetition), or a compiled program
// that is too large. pattern has already compiled, so it parses.
func checkComplexity(pattern string) error {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return fmt.Errorf("invalid regular expression (RE2 syntax): %w", err)
	}
	if n := largestCount(re); n > MaxRepeatCount {
		return fmt.Errorf("pattern too costly: a repetition count of %d is over the limit of %d; use a smaller count, or * or + instead of {n}", n, MaxRepeatCount)
	}
	simple := re.Simplify() // writes counted repetitions out
	if n := countRepeats(simple); n > MaxPatternRepeats {
		return fmt.Errorf("pattern too costly: it holds %d repetitions once counted repetitions are written out (limit %d); avoid repeating a group that itself repeats, such as (.*){20}", n, MaxPatternRepeats)
	}
	prog, err := syntax.Compile(simple)
	if err != nil {
		return fmt.Errorf("invalid regular expression (RE2 syntax): %w", err)
	}
	if n := len(prog.Inst); n > MaxPatternInsts {
		return fmt.Errorf("pattern too costly: it compiles to %d instructions (limit %d); use a shorter pattern or smaller repetition counts", n, MaxPatternInsts)
	}
	return nil
}

// largestCount returns the largest bound of a counted repetition in re.
func largestCount(re *syntax.Regexp) int {
	n := 0
	if re.Op == syntax.OpRepeat {
		n = max(re.Min, re.Max)
	}
	for _, sub := range re.Sub {
		n = max(n, largestCount(sub))
	}
	return n
}

// countRepeats counts the repetition operators in a simplified re.
func countRepeats(re *syntax.Regexp) int {
	n := 0
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		n = 1
	}
	for _, sub := range re.Sub {
		n += countRepeats(sub)
	}
	return n
}
