package reqconn

import (
	"encoding/json"
	"sync"
)

// queue holds the messages waiting for Recv, in arrival order.
//
// Backpressure: responses and server→client requests are always accepted,
// since each stands for a call the host or the server is waiting on, so their
// number is bounded by the calls in flight. Server notifications are bounded:
// past limit queued notifications, the transport goroutine that delivers the
// next one waits until Recv makes room (or the connection ends). That slows
// a server that floods notifications at a host that does not read, instead
// of growing without bound or dropping a list_changed on the floor.
type queue struct {
	limit int
	ready chan struct{} // signalled after each add; one reader
	space chan struct{} // signalled when a notification leaves

	mu    sync.Mutex
	items []queued
	notes int // notifications among items
}

type queued struct {
	msg  json.RawMessage
	note bool
}

func newQueue(limit int) *queue {
	return &queue{limit: limit, ready: make(chan struct{}, 1), space: make(chan struct{}, 1)}
}

// put queues msg without waiting.
func (q *queue) put(msg json.RawMessage) {
	q.mu.Lock()
	q.items = append(q.items, queued{msg: msg})
	q.mu.Unlock()
	signal(q.ready)
}

// putNotification queues msg, waiting while limit notifications are queued.
// It reports false if done closed first (msg is then dropped).
func (q *queue) putNotification(done <-chan struct{}, msg json.RawMessage) bool {
	for {
		q.mu.Lock()
		if q.notes < q.limit {
			q.items = append(q.items, queued{msg: msg, note: true})
			q.notes++
			more := q.notes < q.limit
			q.mu.Unlock()
			signal(q.ready)
			if more {
				signal(q.space) // pass the wake-up on to another waiting sender
			}
			return true
		}
		q.mu.Unlock()
		select {
		case <-q.space:
		case <-done:
			return false
		}
	}
}

// take removes and returns the oldest message, if any.
func (q *queue) take() (json.RawMessage, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return nil, false
	}
	it := q.items[0]
	q.items[0] = queued{}
	q.items = q.items[1:]
	if len(q.items) == 0 {
		q.items = nil // let the backing array go
	}
	if it.note {
		q.notes--
		signal(q.space)
	}
	return it.msg, true
}

// signal wakes one waiter on ch without blocking.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
