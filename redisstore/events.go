package redisstore

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/redis/go-redis/v9"

	"github.com/plughost/plughost/host"
)

// Events on the channel <prefix>events: one letter, then its subject.
const (
	eventChanged = "c" // + session id
	eventEnded   = "e" // + session id
	eventCatalog = "k" // + the sender's instance id, " ", its catalog fingerprint (hex)
	eventAnswer  = "a" // + the sender's instance id, " ", session id, " ", a client's JSON-RPC response
	eventPins    = "p" // + the name of a server whose tool pins changed
)

// Watch implements host.SessionStore: it reports the sessions changed or
// ended by any replica (its own writes included) until ctx ends or the
// store is closed. Reports are coalesced per session while the reader is
// behind. After the subscription was lost and re-established, a Resync is
// reported, since what was published meanwhile is gone.
func (s *Store) Watch(ctx context.Context) <-chan host.SessionChange {
	buf := host.NewChangeBuffer()
	out := make(chan host.SessionChange)
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		defer cancel() // the store closed: end Deliver too
		s.listen(ctx, hclog.Warn, func(payload string) {
			switch {
			case strings.HasPrefix(payload, eventChanged):
				buf.Add(host.SessionChange{ID: payload[len(eventChanged):]})
			case strings.HasPrefix(payload, eventEnded):
				buf.Add(host.SessionChange{ID: payload[len(eventEnded):], Ended: true})
			}
		}, func() { buf.Add(host.SessionChange{Resync: true}) })
	}()
	go buf.Deliver(ctx, out)
	return out
}

// healthEvery is how long a quiet subscription waits before it pings Redis
// to find out whether the connection still works.
const healthEvery = 15 * time.Second

// listen subscribes to the event channel and hands every message to handle
// until ctx ends or the store is closed. It survives Redis going away:
// go-redis reconnects and resubscribes, and resync is called once the
// subscription works again. Losses and recoveries are logged at level.
func (s *Store) listen(ctx context.Context, level hclog.Level, handle func(payload string), resync func()) {
	s.subscribe(ctx, []string{s.channel}, level, handle, resync, false)
}

// listenFromStart is listen for a reader that must not miss what was
// published before its subscription worked (it starts in a goroutine, and
// after Redis was down): resync is also called once it first works.
func (s *Store) listenFromStart(ctx context.Context, level hclog.Level, handle func(payload string), resync func()) {
	s.subscribe(ctx, []string{s.channel}, level, handle, resync, true)
}

// subscribe is listen on channels; with resyncFirst, resync is called at
// the first subscription too.
func (s *Store) subscribe(ctx context.Context, channels []string, level hclog.Level, handle func(payload string), resync func(), resyncFirst bool) {
	ps := s.rdb.Subscribe(ctx, channels...)
	stop := context.AfterFunc(ctx, func() { ps.Close() })
	defer stop()
	go func() {
		select {
		case <-s.closed:
			ps.Close()
		case <-ctx.Done():
		}
	}()
	defer ps.Close()
	lost, wait := false, 50*time.Millisecond
	for {
		msg, err := ps.ReceiveTimeout(ctx, healthEvery)
		if err != nil {
			if ctx.Err() != nil || s.isClosed() || errors.Is(err, redis.ErrClosed) {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() && !lost {
				_ = ps.Ping(ctx) // a broken connection fails the next receive
				continue
			}
			if !lost {
				s.logger.Log(level, "session events: lost the Redis subscription; retrying (changes made meanwhile are re-checked when it is back)",
					"store", s.String(), "error", err)
			}
			lost = true
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return
			case <-s.closed:
				return
			}
			wait = min(2*wait, 2*time.Second)
			continue
		}
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" && (lost || resyncFirst) {
				if lost {
					s.logger.Log(min(level, hclog.Info), "session events: subscribed again", "store", s.String())
				}
				lost, resyncFirst, wait = false, false, 50*time.Millisecond
				resync()
			}
		case *redis.Message:
			handle(m.Payload)
		}
	}
}

func (s *Store) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

// PublishCatalog tells the other replicas that this one's tool catalog
// now has fingerprint fp (see gateway.Peers).
func (s *Store) PublishCatalog(ctx context.Context, fp uint64) error {
	msg := eventCatalog + s.instance + " " + strconv.FormatUint(fp, 16)
	if err := s.rdb.Publish(ctx, s.channel, msg).Err(); err != nil {
		return s.unavailable(ctx, "publish a catalog change", err)
	}
	return nil
}

// Catalogs reports the catalog fingerprints other replicas publish, until
// ctx ends or the store is closed (see gateway.Peers). A lost subscription
// is reported as 0 once it is back: a peer's change may have been missed.
func (s *Store) Catalogs(ctx context.Context) <-chan uint64 {
	out := make(chan uint64, 16)
	go func() {
		defer close(out)
		send := func(fp uint64) {
			select {
			case out <- fp:
			default: // the reader is behind: it rechecks on the next one anyway
			}
		}
		s.listen(ctx, hclog.Debug, func(payload string) { // Watch warns about the same outage
			rest, ok := strings.CutPrefix(payload, eventCatalog)
			from, hex, _ := strings.Cut(rest, " ")
			if !ok || from == s.instance {
				return
			}
			if fp, err := strconv.ParseUint(hex, 16, 64); err == nil {
				send(fp)
			}
		}, func() { send(0) })
	}()
	return out
}

// ForwardResponse hands a client's response that reached this replica to
// the others (see gateway.Peers): the replica whose request it answers
// takes it, the rest drop it.
func (s *Store) ForwardResponse(ctx context.Context, session string, msg []byte) error {
	payload := eventAnswer + s.instance + " " + session + " " + string(msg)
	if err := s.rdb.Publish(ctx, s.channel, payload).Err(); err != nil {
		return s.unavailable(ctx, "forward a client's response", err)
	}
	return nil
}

// Responses calls deliver with every client response another replica
// forwards, until ctx ends or the store is closed (see gateway.Peers).
// Responses forwarded while the subscription was lost are gone: the
// request they answer times out on its own.
func (s *Store) Responses(ctx context.Context, deliver func(session string, msg []byte)) {
	go s.listen(ctx, hclog.Debug, func(payload string) { // Watch warns about the same outage
		rest, ok := strings.CutPrefix(payload, eventAnswer)
		from, rest, _ := strings.Cut(rest, " ")
		session, msg, found := strings.Cut(rest, " ")
		if ok && found && from != s.instance {
			deliver(session, []byte(msg))
		}
	}, func() {})
}
