package main

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/pluginapi"
)

// Directions of a logged message.
const (
	toServer = "host->server"
	toHost   = "server->host"
)

// conn logs every message of the connection it wraps. It deliberately does not
// implement pluginapi.PipeHandoff, so the plugin always relays (and sees)
// messages. Like the wrapped Conn, Send may be called concurrently and Recv
// from one goroutine.
type conn struct {
	inner pluginapi.Conn
	log   hclog.Logger
}

var (
	_ pluginapi.Conn                = (*conn)(nil)
	_ pluginapi.DiagnosticsProvider = (*conn)(nil)
)

// Send delivers msg and logs it once delivered, or logs why it was not.
func (c *conn) Send(ctx context.Context, msg json.RawMessage) error {
	err := c.inner.Send(ctx, msg)
	c.logMessage(toServer, msg, err)
	return err
}

// Recv returns the next message from the server and logs it.
func (c *conn) Recv(ctx context.Context) (json.RawMessage, error) {
	msg, err := c.inner.Recv(ctx)
	if err != nil {
		if kind := pluginapi.KindOf(err); kind != "" {
			c.log.Info("connection ended", "error_kind", string(kind))
		} else {
			c.log.Info("connection ended")
		}
		return nil, err
	}
	c.logMessage(toHost, msg, nil)
	return msg, nil
}

// SessionID returns the wrapped connection's session id.
func (c *conn) SessionID() string { return c.inner.SessionID() }

// Close closes the wrapped connection (and so ends the server).
func (c *conn) Close() error { return c.inner.Close() }

// Diagnostics passes on the wrapped connection's diagnostics (server stderr
// tail, pid), so `plughost mcp show` works as with stdio.
func (c *conn) Diagnostics() pluginapi.Diagnostics {
	if dp, ok := c.inner.(pluginapi.DiagnosticsProvider); ok {
		return dp.Diagnostics()
	}
	return pluginapi.Diagnostics{}
}

// logMessage logs what msg is, never what it holds: bodies carry tool
// arguments and results, which may be secret. The error is reported by its
// kind only, since a transport's message may quote the payload.
func (c *conn) logMessage(direction string, msg json.RawMessage, err error) {
	kv := append([]any{"direction", direction}, summarize(msg).keyvals()...)
	if err != nil {
		c.log.Warn("message not delivered", append(kv, "error_kind", string(pluginapi.KindOf(err)))...)
		return
	}
	c.log.Info("message", kv...)
}
