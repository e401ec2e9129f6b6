package redisstore

import (
	"context"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// turnBatch sends the turn counts of concurrent calls together (group
// commit): a count asked for while none is in flight goes at once, alone;
// counts asked for while one is in flight wait for it and then go
// together, as one pipeline — one write and one read on one connection for
// Redis and for this process, however many calls ended a turn meanwhile.
// A count never waits for more than the pipeline before it. Safe for
// concurrent use.
type turnBatch struct {
	// send runs one pipeline of counts, filling each one's result.
	send func(ctx context.Context, counts []*turnCount)

	mu      sync.Mutex
	queue   []*turnCount
	sending bool
}

// turnCount is one session's turn to count, and its result.
type turnCount struct {
	id   string
	n    int64 // the new count; -1 when the session is gone
	err  error
	done chan struct{}
}

// count asks for one turn of session id to be counted and waits for the
// new count (or for ctx to end: the count may still happen).
func (b *turnBatch) count(ctx context.Context, id string) (int64, error) {
	c := &turnCount{id: id, done: make(chan struct{})}
	b.mu.Lock()
	if b.sending {
		b.queue = append(b.queue, c)
		b.mu.Unlock()
		select {
		case <-c.done:
			return c.n, c.err
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	b.sending = true
	b.mu.Unlock()
	b.send(context.WithoutCancel(ctx), []*turnCount{c})
	b.drain(false)
	return c.n, c.err
}

// drain sends what queued meanwhile, batch after batch, until nothing is
// left. The first batch goes from a goroutine of its own (unless inline):
// the caller that sent the previous one has its answer and returns.
func (b *turnBatch) drain(inline bool) {
	b.mu.Lock()
	if len(b.queue) == 0 {
		b.sending = false
		b.mu.Unlock()
		return
	}
	batch := b.queue
	b.queue = nil
	b.mu.Unlock()
	if !inline {
		go func() {
			b.send(context.Background(), batch)
			b.drain(true)
		}()
		return
	}
	b.send(context.Background(), batch)
	b.drain(true)
}

// sendTurns runs turnScript for each count in one pipeline; if Redis lost
// the script (a restart), it loads it and runs the pipeline again.
func (s *Store) sendTurns(ctx context.Context, counts []*turnCount) {
	defer func() {
		for _, c := range counts {
			close(c.done)
		}
	}()
	for attempt := 0; ; attempt++ {
		cmds := make([]*redis.Cmd, len(counts))
		_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, c := range counts {
				cmds[i] = turnScript.EvalSha(ctx, p, []string{s.key(c.id), s.turnKey(c.id)}, s.opts.IdleTimeout.Milliseconds())
			}
			return nil
		})
		if err != nil && attempt == 0 && strings.HasPrefix(err.Error(), "NOSCRIPT") {
			if err := turnScript.Load(ctx, s.rdb).Err(); err == nil {
				continue
			}
		}
		for i, c := range counts {
			c.n, c.err = cmds[i].Int64()
		}
		return
	}
}
