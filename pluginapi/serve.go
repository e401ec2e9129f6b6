package pluginapi

import (
	"os"
	"runtime"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
)

// ServeConfig configures Serve.
type ServeConfig struct {
	// Transport is the plugin's implementation.
	Transport Transport
	// Logger receives the plugin's logs; nil means hclog JSON on stderr, which
	// the host re-levels into its own log.
	Logger hclog.Logger
}

// Serve runs a transport plugin until the host kills it. Call it from main and
// do nothing else with stdin and stdout: stdout carries the go-plugin handshake
// and stdin is shared with the host.
//
// A relay needs no parallelism, and one scheduler thread halves the latency of
// a hop, so Serve sets GOMAXPROCS to 1 unless the GOMAXPROCS variable is set.
func Serve(cfg ServeConfig) {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	logger := cfg.Logger
	if logger == nil {
		logger = hclog.New(&hclog.LoggerOptions{Name: "transport", JSONFormat: true, Output: os.Stderr})
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: Handshake(),
		Plugins:         plugin.PluginSet{pluginName: &transportPlugin{impl: cfg.Transport, logger: logger}},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(serverOptions(opts)...)
		},
		Logger: logger,
	})
}
