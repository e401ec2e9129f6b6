package redisstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/redis/go-redis/v9"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/lib/secret"
)

// Options configure Open.
type Options struct {
	// URL locates Redis: redis://[[user]:password@]host:port/db, or
	// rediss:// for TLS.
	URL secret.URL
	// Prefix starts every key and channel; "" means "plughost:".
	Prefix string
	// IdleTimeout expires a session no Create, Load or Update touched for
	// that long (the key's TTL); 0 keeps sessions until deleted.
	IdleTimeout time.Duration
	// Timeout bounds connecting and each command; 0 means 1 s.
	Timeout time.Duration
	// Logger receives the event subscription's losses and recoveries; nil
	// discards them.
	Logger hclog.Logger
	// TLSCAFile, TLSCertFile and TLSKeyFile are tools.mcp.gateway.store's
	// tls_* keys, for a rediss:// URL (config.Store.TLSConfig).
	TLSCAFile, TLSCertFile, TLSKeyFile string
}

// FromConfig returns the options of tools.mcp.gateway.store (type redis).
func FromConfig(g config.Gateway, logger hclog.Logger) Options {
	return Options{URL: g.Store.URL, Prefix: g.Store.Prefix, IdleTimeout: g.SessionIdle(), Logger: logger,
		TLSCAFile: g.Store.TLSCAFile, TLSCertFile: g.Store.TLSCertFile, TLSKeyFile: g.Store.TLSKeyFile}
}

// maxAttempts bounds how often Update reapplies a change that lost a race.
const maxAttempts = 64

// Store is a host.SessionStore (and host.RemoteSessionStore) in Redis. Open
// connects lazily: a Redis that is down makes operations fail, not Open.
// Safe for concurrent use.
type Store struct {
	opts    Options
	rdb     *redis.Client
	logger  hclog.Logger
	channel string
	// instance tells this store's catalog events from the other replicas'.
	instance string
	// cache holds the value last read or written per session, and
	// whether it is known current (see sessionCache).
	cache *sessionCache
	// bus is the one subscription to the event channel.
	bus *bus
	// health is what Check remembers between calls.
	health *health
	// turns sends CountTurn's scripts, those of concurrent calls together.
	turns  *turnBatch
	closed chan struct{}
	once   sync.Once
}

var _ host.RemoteSessionStore = (*Store)(nil)

// Open prepares a store; it does not wait for Redis (see Ping).
func Open(o Options) (*Store, error) {
	if err := config.CheckRedisURL(o.URL.Reveal()); err != nil {
		return nil, fmt.Errorf("tools.mcp.gateway.store.url: %w", err)
	}
	ro, err := redis.ParseURL(o.URL.Reveal())
	if err != nil {
		return nil, fmt.Errorf("tools.mcp.gateway.store.url: %s: %v", o.URL, secret.MaskURLs(err.Error()))
	}
	if o.Prefix == "" {
		o.Prefix = "plughost:"
	}
	if o.Timeout <= 0 {
		o.Timeout = time.Second
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	ro.DialTimeout, ro.ReadTimeout, ro.WriteTimeout = o.Timeout, o.Timeout, o.Timeout
	ro.PoolTimeout = 2 * o.Timeout
	// One retry (a pooled connection Redis closed when it restarted) and one
	// dial per attempt: with Redis down a request fails in milliseconds with
	// a clear error instead of queueing behind seconds of dial retries.
	ro.MaxRetries, ro.DialerRetries = 1, 1
	if err := useTLS(ro, o); err != nil {
		return nil, err
	}
	ro.DisableIdentity = true // CLIENT SETINFO: one more round trip per connection, for nothing here
	// RESP2: with RESP3, go-redis peeks every connection for push
	// notifications before each command (one more read syscall per
	// command, ≈ a quarter of the store's CPU per call), and the store
	// uses none (its events come on the Pub/Sub connection).
	ro.Protocol = 2
	ro.ClientName = "plughost"
	fresh := maxFresh
	if o.IdleTimeout > 0 {
		fresh = min(fresh, o.IdleTimeout/4)
	}
	cache := newSessionCache(cacheMax, fresh, time.Now)
	// A new connection may be to a Redis that restarted and lost what it
	// held before the subscription noticed: trust nothing read before it.
	ro.OnConnect = func(context.Context, *redis.Conn) error { cache.distrust(); return nil }
	s := &Store{opts: o, rdb: redis.NewClient(ro), logger: o.Logger, channel: o.Prefix + "events",
		instance: strconv.FormatUint(rand.Uint64(), 36), cache: cache, bus: newBus(), health: &health{}, closed: make(chan struct{})}
	s.turns = &turnBatch{send: s.sendTurns}
	go s.run()
	return s, nil
}

// maxFresh bounds how long a remembered session value is trusted without a
// round trip: each one also renews the key's TTL, so an active session
// never expires, and a subscription that broke without a word (a silent
// network partition, found within healthEvery) cannot keep a stale value
// in use for longer.
const maxFresh = 30 * time.Second

// String names the store, its password masked.
func (s *Store) String() string { return "redis at " + s.opts.URL.String() }

// Close closes the connections; Watch readers end. It is idempotent.
func (s *Store) Close() error {
	var err error
	s.once.Do(func() {
		close(s.closed)
		err = s.rdb.Close()
	})
	return err
}

// Ping reports whether Redis answers now.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		return s.unavailable(ctx, "ping", err)
	}
	return nil
}

func (s *Store) key(id string) string { return s.opts.Prefix + "session:" + id }

// turnKey holds a session's turn count (CountTurn), beside its record.
func (s *Store) turnKey(id string) string { return s.opts.Prefix + "turn:" + id }

// Create implements host.SessionStore.
func (s *Store) Create(ctx context.Context, id string, st host.SessionRecord) error {
	st.Format, st.Rev = host.SessionRecordFormat, 1
	if st.Created.IsZero() {
		st.Created = time.Now()
	}
	value, err := encode(st)
	if err != nil {
		return fmt.Errorf("session %q: %w", id, err)
	}
	_, _, _, _, t := s.cache.begin(id, writeIDOf(value))
	ok, err := s.rdb.SetNX(ctx, s.key(id), value, s.opts.IdleTimeout).Result()
	if err != nil {
		return s.unavailable(ctx, "create session", err)
	}
	if !ok {
		return fmt.Errorf("session %q: %w", id, host.ErrSessionExists)
	}
	s.cache.put(id, t, value, st, true)
	return nil
}

// Load implements host.SessionStore; it renews the session's TTL (at most
// maxFresh apart: a value known current is returned without a round trip).
func (s *Store) Load(ctx context.Context, id string) (host.SessionRecord, error) {
	rec, _, _, current, t := s.cache.begin(id, "")
	if current {
		return rec, nil
	}
	raw, turn, err := s.read(ctx, id)
	if err != nil {
		return host.SessionRecord{}, err
	}
	st, err := s.decode(id, raw)
	if err == nil {
		st.Turn = turn
		s.cache.put(id, t, raw, st, true)
	}
	return st, err
}

// read returns a session's stored value and its turn count, renewing the
// TTL of both: one round trip.
func (s *Store) read(ctx context.Context, id string) (string, uint64, error) {
	var value, turn *redis.StringCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		if s.opts.IdleTimeout > 0 {
			value, turn = p.GetEx(ctx, s.key(id), s.opts.IdleTimeout), p.GetEx(ctx, s.turnKey(id), s.opts.IdleTimeout)
		} else {
			value, turn = p.Get(ctx, s.key(id)), p.Get(ctx, s.turnKey(id))
		}
		return nil
	})
	raw, rerr := value.Result()
	if errors.Is(rerr, redis.Nil) {
		s.cache.drop(id)
		return "", 0, fmt.Errorf("session %q: %w", id, host.ErrSessionNotFound)
	}
	if err != nil && !errors.Is(err, redis.Nil) || rerr != nil {
		s.cache.drop(id)
		return "", 0, s.unavailable(ctx, "load session", cmp.Or(rerr, err))
	}
	n, err := turn.Uint64()
	if err != nil && !errors.Is(err, redis.Nil) {
		s.cache.drop(id)
		return "", 0, s.unavailable(ctx, "load session", err)
	}
	return raw, n, nil
}

// Update implements host.SessionStore: apply fn to the session's value and
// write the result only if the session still holds that value (casScript);
// on a lost race fn is applied again to the value that won. The value
// this store last read or wrote serves as the expected one, so an update
// costs one round trip, and one that changes nothing none when that value
// is known current (see sessionCache); otherwise the same script checks
// that it was current (and renews the TTL).
func (s *Store) Update(ctx context.Context, id string, fn func(*host.SessionRecord) error) (host.SessionRecord, error) {
	cur, raw, ok, verified, t := s.cache.begin(id, "")
	if !ok {
		var err error
		var turn uint64
		if raw, turn, err = s.read(ctx, id); err != nil {
			return host.SessionRecord{}, err
		}
		if cur, err = s.decode(id, raw); err != nil {
			return host.SessionRecord{}, err
		}
		cur.Turn = turn
		s.cache.put(id, t, raw, cur, true)
		verified = true
	}
	for attempt := 0; ; attempt++ {
		if attempt == maxAttempts {
			return host.SessionRecord{}, fmt.Errorf("session %q: %d concurrent updates in a row won the race; try again", id, maxAttempts)
		}
		next, value := cur.Clone(), "" // "": unchanged, only check cur
		if err := fn(&next); errors.Is(err, host.ErrSessionUnchanged) {
			if verified {
				return cur, nil
			}
		} else if err != nil {
			return host.SessionRecord{}, err
		} else {
			next.Format, next.Rev = host.SessionRecordFormat, cur.Rev+1
			if value, err = encode(next); err != nil {
				return host.SessionRecord{}, fmt.Errorf("session %q: %w", id, err)
			}
		}
		_, _, _, _, t = s.cache.begin(id, writeIDOf(value))
		won, current, turn, err := s.swap(ctx, id, raw, cur.Turn, value)
		switch {
		case err != nil:
			s.cache.drop(id)
			return host.SessionRecord{}, err
		case won && value == "":
			s.cache.put(id, t, raw, cur, true)
			return cur, nil
		case won:
			s.cache.put(id, t, value, next, true)
			return next, nil
		}
		raw, verified = current, true
		if cur, err = s.decode(id, raw); err != nil {
			s.cache.drop(id)
			return host.SessionRecord{}, err
		}
		cur.Turn = turn
		s.cache.put(id, t, raw, cur, false) // current, but the TTL was not renewed
		if attempt >= 2 {
			// Many writers on one session: wait a random moment, growing,
			// so the writers stop colliding in lockstep.
			select {
			case <-time.After(time.Duration(rand.Int64N(int64(attempt) * int64(time.Millisecond)))):
			case <-ctx.Done():
				return host.SessionRecord{}, fmt.Errorf("session %q: %w", id, ctx.Err())
			}
		}
	}
}

// writeIDOf returns the write id that starts a stored value ("" for none).
func writeIDOf(value string) string {
	if len(value) < writeIDLen {
		return ""
	}
	return value[:writeIDLen]
}

// swap writes value if the session still holds old and its turn count is
// still turn (value "": only checks them and renews the TTL); otherwise it
// returns what the session holds now and its count. A swap whose reply was
// lost and that go-redis retried finds its own value: that is a win.
func (s *Store) swap(ctx context.Context, id, old string, turn uint64, value string) (won bool, current string, now uint64, err error) {
	reply, err := casScript.Run(ctx, s.rdb, []string{s.key(id), s.turnKey(id)},
		writeIDOf(old), value, s.opts.IdleTimeout.Milliseconds(), s.channel, eventChanged+id+" ", turn).Result()
	if err != nil {
		return false, "", 0, s.unavailable(ctx, "update session", err)
	}
	switch r := reply.(type) {
	case int64:
		if r == 0 {
			return false, "", 0, fmt.Errorf("session %q: %w", id, host.ErrSessionNotFound)
		}
		return true, value, turn, nil
	case []any:
		if len(r) == 2 {
			current, ok1 := r[0].(string)
			now, ok2 := r[1].(int64)
			if ok1 && ok2 && now >= 0 {
				return value != "" && current == value, current, uint64(now), nil
			}
		}
	}
	return false, "", 0, fmt.Errorf("session %q: unexpected reply %v from the update script", id, reply)
}

// CountTurn implements host.SessionStore: one script, which renews the
// count's TTL (the record's is renewed by Load, at most maxFresh apart)
// and sends no event; the counts of concurrent calls share a round trip
// (turnBatch).
func (s *Store) CountTurn(ctx context.Context, id string) (uint64, error) {
	n, err := s.turns.count(ctx, id)
	if err != nil {
		s.cache.drop(id)
		return 0, s.unavailable(ctx, "count a turn", err)
	}
	if n < 0 {
		s.cache.drop(id)
		return 0, fmt.Errorf("session %q: %w", id, host.ErrSessionNotFound)
	}
	s.cache.sawTurn(id, uint64(n))
	return uint64(n), nil
}

// Delete implements host.SessionStore.
func (s *Store) Delete(ctx context.Context, id string) error {
	s.cache.drop(id)
	if err := deleteScript.Run(ctx, s.rdb, []string{s.key(id), s.turnKey(id)}, s.channel, eventEnded+id).Err(); err != nil {
		return s.unavailable(ctx, "delete session", err)
	}
	return nil
}

// unavailable wraps a failed command: the caller's own cancellation as
// such, anything else as host.ErrStoreUnavailable naming the store — an
// error Redis sent (OOM, WRONGPASS, READONLY …) quoted as Redis said it,
// any other (no connection, a timeout) as Redis not answering.
func (s *Store) unavailable(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", op, ctx.Err())
	}
	var sent redis.Error
	if errors.As(err, &sent) {
		return fmt.Errorf("%w: %s (tools.mcp.gateway.store) answered %s with an error: %q",
			host.ErrStoreUnavailable, s, op, secret.MaskURLs(sent.Error()))
	}
	s.cache.distrust()
	return fmt.Errorf("%w: %s (tools.mcp.gateway.store) did not answer to %s: %s",
		host.ErrStoreUnavailable, s, op, secret.MaskURLs(err.Error()))
}

// writeIDLen is the length of the write id that starts a stored value.
const writeIDLen = 16

// encode returns the stored form of st: a fresh write id, then the JSON.
func encode(st host.SessionRecord) (string, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("encode session state: %w", err)
	}
	id := strconv.FormatUint(rand.Uint64()|1<<63, 16) // always 16 digits
	return id + string(b), nil
}

// decode reads a stored value. A value of another format, or one that is
// not plughost's, counts as absent (it is never misread).
func (s *Store) decode(id, raw string) (host.SessionRecord, error) {
	var st host.SessionRecord
	if len(raw) <= writeIDLen || json.Unmarshal([]byte(raw[writeIDLen:]), &st) != nil || st.Format != host.SessionRecordFormat {
		s.logger.Warn("ignoring a session value plughost cannot read (another format or not plughost's); the session counts as ended", "session", id)
		return host.SessionRecord{}, fmt.Errorf("session %q: %w", id, host.ErrSessionNotFound)
	}
	return st, nil
}

// casScript: KEYS[1] the session, KEYS[2] its turn count; ARGV: the write
// id of the value expected (every write has its own), the new value ("":
// none, only check), the TTL in ms (0: none), the event channel, the event
// (the new value is appended to it), the turn count expected. Returns 0
// when the session is gone, 1 when written (or checked), else the value it
// holds now and its turn count.
var casScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
local turn = tonumber(redis.call('GET', KEYS[2]) or '0')
if string.sub(cur, 1, ` + strconv.Itoa(writeIDLen) + `) ~= ARGV[1] or turn ~= tonumber(ARGV[6]) then return {cur, turn} end
if ARGV[2] == '' then
  if tonumber(ARGV[3]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
  return 1
end
if tonumber(ARGV[3]) > 0 then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[2])
end
redis.call('PUBLISH', ARGV[4], ARGV[5] .. ARGV[2])
return 1
`)

// deleteScript: KEYS[1] the session, KEYS[2] its turn count; ARGV: the
// event channel, the event.
var deleteScript = redis.NewScript(`
redis.call('DEL', KEYS[2])
if redis.call('DEL', KEYS[1]) == 1 then redis.call('PUBLISH', ARGV[1], ARGV[2]) end
return 1
`)

// turnScript: KEYS[1] the session, KEYS[2] its turn count; ARGV[1] the TTL
// in ms (0: none). Returns the new count, or -1 when the session is gone
// (so a turn ending after a delete leaves no count behind).
var turnScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local n = redis.call('INCR', KEYS[2])
if tonumber(ARGV[1]) > 0 then redis.call('PEXPIRE', KEYS[2], ARGV[1]) end
return n
`)

// RouteClientLogs sends the go-redis client's own log lines (one per failed
// dial while Redis is down, which it would print on stderr) to l at debug
// level; the store's errors say the same thing where it matters. It sets a
// process-wide logger of go-redis: call it once, from main.
func RouteClientLogs(l hclog.Logger) { redis.SetLogger(clientLogger{l}) }

type clientLogger struct{ l hclog.Logger }

func (c clientLogger) Printf(_ context.Context, format string, v ...any) {
	c.l.Debug(fmt.Sprintf(format, v...))
}
