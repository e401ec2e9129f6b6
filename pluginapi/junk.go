package pluginapi

import (
	"fmt"
	"time"
)

// Limits of the junk a stdio server may write on its stdout before its
// first JSON-RPC message (a banner, a notice): past any of them, or when no
// message follows the first junk line within JunkGrace, the connection
// fails with KindBadOutput.
const (
	// JunkGrace is how long a message may take to follow the first junk line.
	JunkGrace = 10 * time.Second
	// junkMaxLines bounds the junk lines before the first message (each
	// line is bounded by the message limit).
	junkMaxLines = 20
)

// JunkGuard applies the rule for lines of a stdio server's stdout that are
// not JSON-RPC messages. Before the server's first message they are
// tolerated as a start-up banner — up to 20 lines, and only if a message
// follows within JunkGrace: a server that answers initialize with junk
// fails with KindBadOutput quoting its first line, instead of leaving the
// host to wait for the initialize timeout. After the first message, junk
// lines are skipped (servers that log a line on stdout now and then keep
// working). A reader calls Junk for each junk line, Message for each
// message, and Expired when a read hit the deadline Junk asked for.
// A JunkGuard is not safe for concurrent use.
type JunkGuard struct {
	spoke bool   // a message has been seen
	first []byte // the first junk line (bounded)
	lines int
	armed bool
}

// Junk records a junk line. It returns the read deadline to set (zero:
// leave it) or the error that ends the connection.
func (g *JunkGuard) Junk(line []byte, now time.Time) (deadline time.Time, err error) {
	if g.spoke {
		return time.Time{}, nil
	}
	if g.first == nil {
		g.first = append([]byte{}, line[:min(len(line), 4*badOutputQuote)]...)
	}
	g.lines++
	if g.lines > junkMaxLines {
		return time.Time{}, g.err(" (more than the few lines of a start-up banner before its first message)")
	}
	if g.armed {
		return time.Time{}, nil
	}
	g.armed = true
	return now.Add(JunkGrace), nil
}

// Message records a message; it reports whether the deadline Junk set must
// be cleared.
func (g *JunkGuard) Message() (disarm bool) {
	g.spoke = true
	disarm, g.armed = g.armed, false
	return disarm
}

// Armed reports whether a deadline set by Junk is pending: a read that
// times out is then the guard's to report (Expired).
func (g *JunkGuard) Armed() bool { return g.armed }

// Expired is the error of a read that hit the deadline Junk set.
func (g *JunkGuard) Expired() error {
	return g.err(" and no JSON-RPC message followed within 10s")
}

func (g *JunkGuard) err(why string) error {
	e := BadOutput(g.first)
	e.Err = fmt.Errorf("%w%s", e.Err, why)
	return e
}
