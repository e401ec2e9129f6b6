package redisstore

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/plughost/plughost/host"
)

// healthEvery is how long a quiet subscription waits before it pings Redis
// to find out whether the connection still works.
const healthEvery = 15 * time.Second

// bus is a store's one subscription to its event channel, shared by every
// reader (session watchers, catalog and pin readers, the session cache):
// Redis delivers each event to a replica once, however many readers it
// has. Safe for concurrent use.
type bus struct {
	mu        sync.Mutex
	listeners map[*listener]struct{}
	live      bool // subscribed now
}

// listener is one reader of the bus.
type listener struct {
	// handle takes each event (channel <prefix>events); nil: none.
	handle func(payload string)
	// receive takes each message sent to this replica (Send); nil: none.
	receive func(msg []byte)
	resync  func()
	// resyncFirst: resync at the first subscription too, not only after
	// a loss (the reader must not miss what was published before).
	resyncFirst bool

	// mu serializes the callbacks with the listener's removal: once
	// removed, none runs (the reader may have closed what they send on).
	mu   sync.Mutex
	gone bool
}

// call runs f, one of l's callbacks, unless l was removed.
func (l *listener) call(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.gone {
		f()
	}
}

func newBus() *bus { return &bus{listeners: map[*listener]struct{}{}} }

// add registers l; a reader that must not miss earlier events is resynced
// at once when the subscription already works.
func (b *bus) add(l *listener) {
	b.mu.Lock()
	b.listeners[l] = struct{}{}
	live := b.live
	b.mu.Unlock()
	if live && l.resyncFirst && l.resync != nil {
		l.call(l.resync)
	}
}

// remove unregisters l, waiting for a callback of it in progress: none
// runs once it returns.
func (b *bus) remove(l *listener) {
	b.mu.Lock()
	delete(b.listeners, l)
	b.mu.Unlock()
	l.mu.Lock()
	l.gone = true
	l.mu.Unlock()
}

// snapshot returns the listeners now.
func (b *bus) snapshot() []*listener {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]*listener, 0, len(b.listeners))
	for l := range b.listeners {
		out = append(out, l)
	}
	return out
}

// setLive records whether the subscription works, and returns whether it
// worked before.
func (b *bus) setLive(live bool) (was bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	was, b.live = b.live, live
	return was
}

// listen hands every event to handle until ctx ends or the store is
// closed. It survives Redis going away: resync is called once the
// subscription works again after a loss (see run).
func (s *Store) listen(ctx context.Context, handle func(payload string), resync func()) {
	s.listenWith(ctx, &listener{handle: handle, resync: resync})
}

// listenFromStart is listen for a reader that must not miss what was
// published before it listened: resync is also called once the
// subscription works (at once when it already does).
func (s *Store) listenFromStart(ctx context.Context, handle func(payload string), resync func()) {
	s.listenWith(ctx, &listener{handle: handle, resync: resync, resyncFirst: true})
}

func (s *Store) listenWith(ctx context.Context, l *listener) {
	s.bus.add(l)
	defer s.bus.remove(l)
	select {
	case <-ctx.Done():
	case <-s.closed:
	}
}

// decodeEvent returns a decoder of the values of session id's events.
func (s *Store) decodeEvent(id string) func(string) (host.SessionRecord, bool) {
	return func(value string) (host.SessionRecord, bool) {
		rec, err := s.decode(id, value)
		return rec, err == nil
	}
}

// run is the store's subscription, from Open until Close. Each session
// event reaches the session cache before any reader, so a reader told of
// a change is never served the copy from before it. Losses and recoveries
// are logged once, whoever listens.
func (s *Store) run() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ps := s.rdb.Subscribe(ctx, s.channel, s.replicaChannel(s.instance), s.replicaChannel(""))
	go func() {
		<-s.closed
		ps.Close()
	}()
	defer ps.Close()
	down, wait := false, 50*time.Millisecond
	for {
		msg, err := ps.ReceiveTimeout(ctx, healthEvery)
		if err != nil {
			if s.isClosed() || errors.Is(err, redis.ErrClosed) {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() && !down {
				_ = ps.Ping(ctx) // a broken connection fails the next receive
				continue
			}
			if !down {
				s.logger.Warn("session events: lost the Redis subscription; retrying (changes made meanwhile are re-checked when it is back)",
					"store", s.String(), "error", err)
				s.cache.setLive(false)
				s.bus.setLive(false)
			}
			down = true
			select {
			case <-time.After(wait):
			case <-s.closed:
				return
			}
			wait = min(2*wait, 2*time.Second)
			continue
		}
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Kind != "subscribe" || m.Channel != s.channel { // one per channel: act once
				continue
			}
			if down {
				s.logger.Info("session events: subscribed again", "store", s.String())
			}
			s.cache.setLive(true)
			s.bus.setLive(true)
			for _, l := range s.bus.snapshot() {
				if (down || l.resyncFirst) && l.resync != nil {
					l.call(l.resync)
				}
			}
			down, wait = false, 50*time.Millisecond
		case *redis.Message:
			if m.Channel != s.channel {
				for _, l := range s.bus.snapshot() {
					if l.receive != nil {
						l.call(func() { l.receive([]byte(m.Payload)) })
					}
				}
				continue
			}
			if id, value, ended, ok := sessionEvent(m.Payload); ok {
				if ended {
					s.cache.drop(id)
				} else {
					s.cache.changed(id, value, s.decodeEvent(id))
				}
			}
			for _, l := range s.bus.snapshot() {
				if l.handle != nil {
					l.call(func() { l.handle(m.Payload) })
				}
			}
		}
	}
}
