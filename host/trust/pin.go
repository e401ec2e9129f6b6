package trust

import (
	"context"
	"encoding/json"
	"maps"
	"time"
)

// Pin is the approved definition of one tool.
type Pin struct {
	// Digest is "sha256:" and the hex digest of Definition (see Digest).
	Digest string `json:"digest"`
	// Definition is Canonical of the approved definition, kept to show
	// what changed when a server lists another one.
	Definition json.RawMessage `json:"definition"`
	// At is when the definition was pinned.
	At time.Time `json:"at"`
	// By says who pinned it: "first list", "cli", "api", "dashboard", a
	// client's name…
	By string `json:"by"`
}

// Record is one server's pins, by the server's own tool name.
type Record struct {
	// Tools holds a pin per tool name; it is empty, not nil, for a server
	// pinned with no tools.
	Tools map[string]Pin `json:"tools"`
}

// clone returns a copy of r that shares nothing mutable with it, so a
// caller of Load cannot change a store's record.
func (r Record) clone() Record {
	c := Record{Tools: make(map[string]Pin, len(r.Tools))}
	for name, p := range r.Tools {
		p.Definition = append(json.RawMessage(nil), p.Definition...)
		c.Tools[name] = p
	}
	return c
}

// Merge returns r with pins added or replaced, as a new record that
// shares nothing mutable with either.
func (r Record) Merge(pins map[string]Pin) Record {
	c := r.clone()
	maps.Copy(c.Tools, Record{Tools: pins}.clone().Tools)
	return c
}

// Store keeps every server's record. Implementations are safe for
// concurrent use.
type Store interface {
	// Load returns server's record; ok is false when the server was never
	// pinned.
	Load(ctx context.Context, server string) (rec Record, ok bool, err error)
	// Pin adds or replaces pins in server's record, creating the record
	// (even when pins is empty: the server is then known and pinned with
	// no tools). It is atomic with respect to every other writer — other
	// goroutines, other processes on the same file, other replicas on the
	// same Redis — so two approvals of different tools both survive.
	Pin(ctx context.Context, server string, pins map[string]Pin) error
	// Changes delivers the name of each server whose record another
	// process or replica changed (it may also deliver this process's own
	// changes; receivers re-Load), until ctx ends; the channel is then
	// closed. A burst may be coalesced, but a change is never lost
	// silently: when a store may have missed changes (its watch broke and
	// came back), it delivers AllServers.
	Changes(ctx context.Context) <-chan string
}

// AllServers is what Changes delivers when any server's record may have
// changed: the receiver re-Loads every server it pinned.
const AllServers = ""
