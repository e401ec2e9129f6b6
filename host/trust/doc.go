// Package trust pins the tool definitions of MCP servers, so that a
// definition changed after the user approved it (a "rug pull": a poisoned
// description served after a list_changed or on the next start) is noticed
// instead of passed on to the model.
//
// A Pin is the approved form of one tool: the digest of its Canonical
// definition (name, title, description, schemas and annotations; key order
// and whitespace do not count), the definition itself, to show what
// changed, and when and by whom it was approved. A Record holds one
// server's pins. A Store keeps the records: in the process (MemoryStore),
// in a file shared by every plughost of the user (FileStore, by default
// ~/.plughost/pins.json), or in Redis for replicas (redisstore's Pins).
// Every store merges pins atomically, so two approvals made at once both
// survive, and reports through Changes the servers whose record another
// process or replica changed.
//
// Deciding what to quarantine and asking for approval is the host's job;
// this package only records and compares.
package trust
