package supervisor

import "time"

// Default pacing of re-lists after notifications/tools/list_changed.
const (
	// DefaultRelistMinGap is the wait before the second of two re-lists in
	// quick succession.
	DefaultRelistMinGap = 200 * time.Millisecond
	// DefaultRelistMaxGap caps the wait between re-lists of a server that
	// keeps announcing changes.
	DefaultRelistMaxGap = 5 * time.Second
)

// RelistPacing paces the re-lists a server triggers with
// notifications/tools/list_changed. Notifications that arrive while a
// re-list runs or waits are coalesced into one pending re-list, so at most
// one is in flight and one pending. The first re-list after a quiet period
// runs at once; each further one waits a gap that starts at MinGap and
// doubles up to MaxGap while the server keeps changing, and resets once the
// server has been quiet for twice the gap. A server sending list_changed in
// a loop thus costs one tools/list every MaxGap.
type RelistPacing struct {
	// MinGap is the first gap (0: DefaultRelistMinGap).
	MinGap time.Duration
	// MaxGap caps the gap (0: DefaultRelistMaxGap).
	MaxGap time.Duration
}

func (p RelistPacing) withDefaults() RelistPacing {
	if p.MinGap <= 0 {
		p.MinGap = DefaultRelistMinGap
	}
	if p.MaxGap <= 0 {
		p.MaxGap = DefaultRelistMaxGap
	}
	p.MaxGap = max(p.MaxGap, p.MinGap)
	return p
}

// relistPacer applies RelistPacing to one connection's re-lists. It is used
// by one goroutine only.
type relistPacer struct {
	pacing RelistPacing
	gap    time.Duration // wait before the next re-list, 0 after a quiet period
	last   time.Time     // when the last re-list finished
}

func newRelistPacer(p RelistPacing) *relistPacer {
	return &relistPacer{pacing: p.withDefaults()}
}

// wait returns how long a re-list requested at now must wait.
func (p *relistPacer) wait(now time.Time) time.Duration {
	since := now.Sub(p.last)
	if p.last.IsZero() || since >= 2*p.gap {
		p.gap = 0 // quiet long enough: answer the first change at once
	}
	return max(p.gap-since, 0)
}

// done records a re-list that finished at now and widens the gap.
func (p *relistPacer) done(now time.Time) {
	p.last = now
	p.gap = min(max(2*p.gap, p.pacing.MinGap), p.pacing.MaxGap)
}
