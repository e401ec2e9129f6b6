// Package sessionconn keeps the connections a server with isolation
// "session" opens for one agent session each: a Pool per server, keyed by
// session id, starts a supervisor.Server from the server's spec at the
// session's first use, routes what it sends to that session alone
// (routing.SessionRouter), and closes it when the session ends or leaves
// it unused past the idle limit. The shared connection of the server
// (host's supervisor) keeps listing its tools.
package sessionconn
