package main

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/pluginapi"
)

// Name is the transport type this plugin serves: "type": "logging".
const Name = "logging"

// transport wraps another transport and logs the messages of every connection
// it opens. It is safe for concurrent use when the wrapped transport is.
type transport struct {
	inner pluginapi.Transport
	log   hclog.Logger
}

var _ pluginapi.Transport = (*transport)(nil)

func newTransport(inner pluginapi.Transport, log hclog.Logger) *transport {
	return &transport{inner: inner, log: log}
}

// Describe names this plugin and keeps the wrapped transport's features except
// direct pipes: a message that skips this process cannot be logged.
func (t *transport) Describe(ctx context.Context) (pluginapi.Description, error) {
	d, err := t.inner.Describe(ctx)
	if err != nil {
		return pluginapi.Description{}, err
	}
	var features []string
	for _, f := range d.Features {
		if f != pluginapi.FeatureDirectPipes {
			features = append(features, f)
		}
	}
	return pluginapi.Description{Name: Name, Version: version, Features: features}, nil
}

// Validate accepts exactly what the wrapped transport accepts.
func (t *transport) Validate(ctx context.Context, config json.RawMessage) error {
	return t.inner.Validate(ctx, config)
}

// Open opens a connection through the wrapped transport, never with direct
// pipes, and returns it wrapped so each message is logged.
func (t *transport) Open(ctx context.Context, req pluginapi.OpenRequest) (pluginapi.Conn, error) {
	req.WantDirectPipes = false
	inner, err := t.inner.Open(ctx, req)
	if err != nil {
		return nil, err
	}
	log := t.log.With("server", req.ServerName)
	log.Info("connection opened", "version", version)
	return &conn{inner: inner, log: log}, nil
}
