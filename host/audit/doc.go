// Package audit keeps the record of what was done through the host: one
// Record per call (tools/call, resources/read, prompts/get) and per
// server→client request passed to a client (sampling, elicitation,
// roots). A record says who, what, how long and with what outcome — never
// the arguments or results themselves, at most a hash of the arguments.
//
// A Log writes records as JSON lines to a directory with size-bounded
// rotation, and keeps the newest in memory for the API. Writing never
// blocks the caller: records queue in a bounded channel that one goroutine
// (Run, owned by the host) writes out; when the queue is full a record is
// dropped and counted, never waited for.
package audit
