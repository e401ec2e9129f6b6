package pluginapi

import (
	"github.com/hashicorp/go-hclog"
)

// ServeConfig configures Serve.
type ServeConfig struct {
	// Transport is the plugin's implementation.
	Transport Transport
	// Logger receives the plugin's logs; nil means hclog JSON on stderr.
	Logger hclog.Logger
}

// Serve runs a transport plugin until the host kills it. Call it from main.
// It never returns on success. It must be the only thing main does with stdin and
// stdout: stdout carries the go-plugin handshake.
func Serve(cfg ServeConfig) {
	panic("TODO")
}
