package pluginapi

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

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

// parentPoll is how often a plugin checks that the host that started it
// still runs.
const parentPoll = 250 * time.Millisecond

// orphanCloseTimeout bounds how long an orphaned plugin spends closing its
// connections before it exits anyway.
const orphanCloseTimeout = 10 * time.Second

// Serve runs a transport plugin until the host kills it. Call it from main and
// do nothing else with stdin and stdout: stdout carries the go-plugin handshake
// and stdin is shared with the host.
//
// A plugin never outlives its host: when the host dies without stopping it
// (SIGKILL, a crash), the plugin notices that its parent process changed,
// closes every connection — for stdio, that ends each server's whole process
// group — and exits. A write to the dead host's pipes does not kill it
// first (SIGPIPE is ignored, so such writes just fail).
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
	// Without this, the first log line written after the host died would kill
	// the plugin with SIGPIPE before it could stop its servers.
	signal.Ignore(syscall.SIGPIPE)
	srv := &grpcServer{impl: cfg.Transport, logger: logger}
	go WatchParent(context.Background(), parentPoll, func() {
		logger.Warn("the host exited without stopping this plugin; stopping its servers and exiting")
		done := make(chan struct{})
		go func() { srv.closeAll(); close(done) }()
		select {
		case <-done:
		case <-time.After(orphanCloseTimeout):
		}
		os.Exit(1)
	})
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: Handshake(),
		Plugins:         plugin.PluginSet{pluginName: &transportPlugin{server: srv}},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(serverOptions(opts)...)
		},
		Logger: logger,
	})
}
