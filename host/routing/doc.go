// Package routing ties what MCP servers send on their own — notifications,
// server→client requests, progress, task statuses, log messages, resource
// updates — to the client session that caused it, and keeps what sessions
// share over one connection per server: log levels, resource
// subscriptions and each server's catalog of resources and prompts.
//
// Its Router implements supervisor.Router (what a supervisor hands on) and
// sees the host only through Servers. The root package host builds
// sessions on it; this package never imports host. A connection of one
// session's own (isolation "session") has a SessionRouter instead, which
// sends everything to that session. "Routing", not
// "relay": in plughost the relay is the plugin carrying messages between
// the host and a server.
package routing
