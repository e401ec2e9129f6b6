// Package redisstore keeps plughost's sessions in Redis (a host.SessionStore),
// so several `plughost serve` replicas behind one load balancer serve any
// request of any session.
//
// Data: one string key per session, <prefix>session:<id>, holding a write
// id (16 hex digits) and the session's state as JSON (host.SessionRecord).
// Its TTL is the idle timeout, renewed by every read (GETEX) and write, so
// Redis itself expires idle sessions and a session outlives any replica.
//
// Updates are optimistic and atomic: the replica reads the value, applies
// the change in Go (a pure function of the state), and a Lua script writes
// the result only if the key still holds exactly what was read — else it
// returns the current value and the change is applied again on top of it.
// Two replicas handling two calls of one session at once therefore never
// lose an unlock or a turn. The write id makes a retried write safe: a
// script that ran but whose answer was lost is recognised by its own value.
//
// Events: every write publishes the session's id and its new value on
// <prefix>events (Redis pub/sub). Each store holds one subscription to it
// (bus.go), which Watch turns into host.SessionChange reports in every
// replica, so a change made on one replica reaches a client attached to
// another. Pub/sub drops what is sent while a subscriber is disconnected;
// after a reconnection Watch reports a Resync so the reader checks every
// session it serves. The same channel carries catalog events (Peers).
//
// The session cache (cache.go): a store remembers the value it last read
// or wrote per session and keeps it current from the events, which carry
// each write's new value. Load, and an Update that changes nothing, then
// cost no round trip; an Update that changes the state costs one script. Nothing is trusted while the subscription is down, after a new
// connection (Redis may have restarted), after a command failed, or for
// longer than maxFresh since the last round trip (which renews the TTL).
// Another replica's write reaches a Load here as soon as its event does —
// the same moment a watcher hears of it.
//
// Tool pins (Pins, a trust.Store): one hash, <prefix>pins, a field per
// server holding its trust.Record as JSON, so one approval holds for every
// replica. A pin is merged like a session update — in Go, then written by
// a script only if the field still holds what was merged into — because
// Lua's cjson would re-encode the pinned definitions, whose bytes their
// digest covers. Each change publishes the server's name on the event
// channel; a reader is told to re-load every server once its subscription
// works, and again after it was lost.
//
// Redis down or slow: every operation is bounded (Options.Timeout) and
// fails with an error wrapping host.ErrStoreUnavailable that names the
// store, URL password masked; nothing is written half-way (each write is
// one command or one script). go-redis reconnects by itself when Redis
// answers again. Needs Redis 6.2 or later (GETEX).
//
// Health (Check, behind /readyz): a test write, since a Redis that is out
// of memory or read-only still answers PING, and the eviction policy read
// in the same round trip, since a Redis that evicts keys drops sessions
// without a word (a warning, not an error).
//
// TLS: a rediss:// URL verifies Redis against the system's CAs or
// tls_ca_file, and presents tls_cert_file and tls_key_file to a Redis
// that requires client certificates; verification cannot be skipped.
// A failed handshake says what to fix.
package redisstore
