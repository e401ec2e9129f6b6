package redisstore

import (
	"context"
	"strconv"
	"strings"

	"github.com/plughost/plughost/host"
)

// Events on the channel <prefix>events: one letter, then its subject.
const (
	eventChanged = "c" // + session id, " ", the new value (write id, JSON)
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
		s.listen(ctx, func(payload string) {
			if id, _, ended, ok := sessionEvent(payload); ok {
				buf.Add(host.SessionChange{ID: id, Ended: ended})
			}
		}, func() { buf.Add(host.SessionChange{Resync: true}) })
	}()
	go buf.Deliver(ctx, out)
	return out
}

// sessionEvent parses a session's event: its id, its new value ("" when
// it ended), and whether it ended; ok is false for an event of another
// kind.
func sessionEvent(payload string) (id, value string, ended, ok bool) {
	if rest, found := strings.CutPrefix(payload, eventChanged); found {
		id, value, _ = strings.Cut(rest, " ")
		return id, value, false, true
	}
	if id, found := strings.CutPrefix(payload, eventEnded); found {
		return id, "", true, true
	}
	return "", "", false, false
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
		s.listen(ctx, func(payload string) {
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
	go s.listen(ctx, func(payload string) {
		rest, ok := strings.CutPrefix(payload, eventAnswer)
		from, rest, _ := strings.Cut(rest, " ")
		session, msg, found := strings.Cut(rest, " ")
		if ok && found && from != s.instance {
			deliver(session, []byte(msg))
		}
	}, func() {})
}
