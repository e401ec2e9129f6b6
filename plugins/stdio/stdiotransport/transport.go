package stdiotransport

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/pluginapi"
	"github.com/plughost/plughost/plugins/stdio/childenv"
)

// Name is the transport type this package serves.
const Name = "stdio"

// Version is the version of this transport implementation.
const Version = "0.1.0"

// Transport starts stdio MCP servers. It implements pluginapi.Transport and
// is safe for concurrent use; each Open starts one independent server.
type Transport struct {
	log     hclog.Logger
	environ func() []string
	timing  timing
}

// timing holds the waits of the shutdown sequence; tests shorten them.
type timing struct {
	// exitWait is how long a server may take to exit once its stdin is closed.
	exitWait time.Duration
	// termGrace is how long a process group may take to exit after SIGTERM.
	termGrace time.Duration
	// killWait bounds the wait for the reap after SIGKILL.
	killWait time.Duration
	// drainWait is how long stdout and stderr may stay open once the process
	// group is gone (a process that left the group can hold them).
	drainWait time.Duration
}

var _ pluginapi.Transport = (*Transport)(nil)

// Option configures a Transport.
type Option func(*Transport)

// WithEnviron sets where the parent environment of servers comes from
// (default os.Environ). The default allowlist and inherit_env apply to it.
func WithEnviron(environ func() []string) Option {
	return func(t *Transport) { t.environ = environ }
}

// New returns a Transport that logs to logger (nil discards logs).
func New(logger hclog.Logger, opts ...Option) *Transport {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	t := &Transport{
		log:     logger,
		environ: os.Environ,
		timing:  timing{exitWait: 2 * time.Second, termGrace: 2 * time.Second, killWait: 5 * time.Second, drainWait: time.Second},
	}
	for _, o := range opts {
		o(t)
	}
	return t
}

// Describe reports the transport's name, version and features.
func (t *Transport) Describe(ctx context.Context) (pluginapi.Description, error) {
	return pluginapi.Description{
		Name:     Name,
		Version:  Version,
		Features: features(),
	}, nil
}

// Validate strictly decodes config (see ParseConfig). It reads no file: a
// missing env_file is reported by Open.
func (t *Transport) Validate(ctx context.Context, config json.RawMessage) error {
	_, err := ParseConfig(config)
	return err
}

// Open validates req.Config, builds the server's environment, and starts the
// server in its own process group. ctx bounds the start only; the server runs
// until the returned *Conn is closed. Errors are *pluginapi.Error: a bad
// config or env_file is KindInvalidConfig, a command that cannot be started
// KindConnect, and a ctx that ends first KindTimeout or KindCanceled.
func (t *Transport) Open(ctx context.Context, req pluginapi.OpenRequest) (pluginapi.Conn, error) {
	cfg, err := ParseConfig(req.Config)
	if err != nil {
		var pe *pluginapi.Error
		if errors.As(err, &pe) {
			pe.Op = "open"
		}
		return nil, err
	}
	env, err := childenv.Build(t.environ(), cfg.EnvFile, cfg.Env, cfg.InheritEnv)
	if err != nil {
		return nil, &pluginapi.Error{Op: "open", Kind: pluginapi.KindInvalidConfig, Err: err}
	}
	path, err := lookPath(cfg.Command, env)
	if err != nil {
		return nil, &pluginapi.Error{Op: "open", Kind: pluginapi.KindConnect, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return nil, ctxError("open", err)
	}
	log := t.log.With("server", req.ServerName)
	c, err := start(log, t.timing, path, cfg, env, req.WantDirectPipes, readLimits{max: req.MessageLimit(), spool: req.Spool})
	if err != nil {
		return nil, err
	}
	log.Info("server started", "command", cfg.Command, "pid", c.pid)
	return c, nil
}

// ctxError turns a context error into the contract's error.
func ctxError(op string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return pluginapi.Errorf(op, pluginapi.KindTimeout, "%w", err)
	}
	return pluginapi.Errorf(op, pluginapi.KindCanceled, "%w", err)
}

// features lists what this transport offers: direct pipes need Unix fd
// passing. Each Open starts an independent server whose log lines name it,
// so one process may serve many servers (the host shares it only for
// servers on direct pipes, whose messages skip the process).
func features() []string {
	if runtime.GOOS == "windows" {
		return []string{pluginapi.FeatureDiagnostics}
	}
	return []string{pluginapi.FeatureDiagnostics, pluginapi.FeatureDirectPipes, pluginapi.FeatureSharedProcess}
}
