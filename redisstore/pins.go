package redisstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/plughost/plughost/host/trust"
	"github.com/plughost/plughost/lib/coalesce"
)

// Pins returns the tool pins kept in this Redis (see the package doc), so
// that one approval holds for every replica. It shares the store's
// connections, prefix and event channel, and ends with it.
func (s *Store) Pins() trust.Store { return pinStore{s} }

// pinStore is a trust.Store in one hash, <prefix>pins: a field per server,
// its trust.Record as JSON. Safe for concurrent use.
type pinStore struct{ s *Store }

func (p pinStore) key() string { return p.s.opts.Prefix + "pins" }

// Load implements trust.Store.
func (p pinStore) Load(ctx context.Context, server string) (trust.Record, bool, error) {
	raw, err := p.s.rdb.HGet(ctx, p.key(), server).Result()
	if errors.Is(err, redis.Nil) {
		return trust.Record{}, false, nil
	}
	if err != nil {
		return trust.Record{}, false, p.s.unavailable(ctx, fmt.Sprintf("load the tool pins of server %q", server), err)
	}
	rec, err := p.decode(server, raw)
	return rec, err == nil, err
}

// Pin implements trust.Store: the record is merged in Go and written by
// pinScript only if the field still holds what was merged into; when
// another replica wrote first, the pins are merged into its record and
// written again.
func (p pinStore) Pin(ctx context.Context, server string, pins map[string]trust.Pin) error {
	raw, err := p.s.rdb.HGet(ctx, p.key(), server).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return p.s.unavailable(ctx, fmt.Sprintf("read the tool pins of server %q", server), err)
	}
	for range maxAttempts {
		var rec trust.Record
		if raw != "" {
			if rec, err = p.decode(server, raw); err != nil {
				return err
			}
		}
		value, err := encodeRecord(rec.Merge(pins))
		if err != nil {
			return fmt.Errorf("pin tools of server %q: %w", server, err)
		}
		reply, err := pinScript.Run(ctx, p.s.rdb, []string{p.key()}, server, raw, value, p.s.channel, eventPins+server).Result()
		if err != nil {
			return p.s.unavailable(ctx, fmt.Sprintf("pin tools of server %q", server), err)
		}
		current, lost := reply.(string)
		// A script that ran but whose answer was lost and that go-redis
		// sent again finds its own value: that is a win.
		if !lost || current == value {
			return nil
		}
		raw = current
	}
	return fmt.Errorf("pin tools of server %q: %d concurrent pins in a row won the race; try again", server, maxAttempts)
}

// Changes implements trust.Store: it delivers the servers whose pins any
// replica changed (its own included) until ctx ends or the store is
// closed. It delivers trust.AllServers once it first listens, and again
// after the subscription was lost and came back: what was published
// meanwhile is gone.
func (p pinStore) Changes(ctx context.Context) <-chan string {
	q := coalesce.New[string]()
	out := make(chan string)
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		defer cancel() // the store closed: end Deliver too
		p.s.listenFromStart(ctx, func(payload string) {
			if server, ok := strings.CutPrefix(payload, eventPins); ok {
				q.Add(server)
			}
		}, func() { q.Add(trust.AllServers) })
	}()
	go q.Deliver(ctx, out)
	return out
}

// decode reads a stored record. One that is not valid is an error naming
// it, never taken for no pins: that would pin the server's tools anew.
func (p pinStore) decode(server, raw string) (trust.Record, error) {
	var rec trust.Record
	if err := json.Unmarshal([]byte(raw), &rec); err != nil {
		return trust.Record{}, fmt.Errorf("%s: the tool pins of server %q (field of hash %s) are not valid: %v; fix or delete the field (HDEL) — deleting it pins the server's tools again, unreviewed, at their next list",
			p.s, server, p.key(), err)
	}
	if rec.Tools == nil {
		rec.Tools = map[string]trust.Pin{}
	}
	return rec, nil
}

// encodeRecord returns the stored form of rec: compact JSON, definitions
// byte for byte (no HTML escaping).
func encodeRecord(rec trust.Record) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return "", fmt.Errorf("encode tool pins: %w", err)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// pinScript: KEYS[1] the pins hash; ARGV: the server (field), the value
// expected ("": no field), the new value, the event channel, the event.
// Returns 1 when written (or already there), else the value the field
// holds now ("": none). The merge itself is done in Go: Lua's cjson would
// re-encode the definitions (numbers as doubles, keys reordered), which
// must stay the bytes their digest was taken of.
var pinScript = redis.NewScript(`
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then cur = '' end
if cur ~= ARGV[2] then return cur end
if cur == ARGV[3] then return 1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
`)
