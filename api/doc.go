// Package api is plughost's JSON API, served by `plughost serve` under
// /api/ on the front door (package frontdoor), behind its bearer token, and
// its client, which the CLI uses to show a running serve's live state
// instead of starting servers of its own. It is a thin front end: every rule is the core's (package host
// and its application layer, package manage).
//
// Endpoints (all JSON; errors are {"error": {"code", "message",
// "problems"?}}):
//
//	GET  /api/status               serve's pid, version, config file and the last reload
//	GET  /api/servers              every server: status, transport, deferred and why
//	GET  /api/servers/{name}       one server: config (secrets masked), status, tools, stderr tail
//	GET  /api/tools                the tools a new session sees
//	GET  /api/context-cost         the tool definitions' size with discovery off and on
//	POST /api/tools/{name}/call    call a tool; the body is its arguments object
//	POST /api/reload               load the config file again and apply it
//
// Requests that change something must be JSON (Content-Type
// application/json) and, if they carry an Origin header, come from the
// server's own origin: a web page elsewhere cannot use a browser to reach
// the API (bearer tokens are never sent by browsers on their own, and no
// cookie is accepted).
//
// A running serve publishes where it listens in a runtime file (see
// Publish), keyed by its config file, so that commands using the same
// config find it (Find).
package api
