package supervisor

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/pluginapi"
)

// PluginPool shares transport plugin processes among servers: the servers
// of one plugin executable (path and sha256 pin) and one plugin
// environment run in one process, when that process advertises both
// pluginapi.FeatureSharedProcess and pluginapi.FeatureDirectPipes and the
// servers use direct pipes, so the process is off their call path. Any
// other plugin process serves one server, as without a pool.
//
// A shared process lives while a server holds it: the last server to let
// it go ends it. When it dies, each of its servers sees its connection
// lost and restarts, and the first restart launches a new process that
// the others join. A server's own crash ends only its connection.
//
// A PluginPool is safe for concurrent use; the zero value is not: use
// NewPluginPool.
type PluginPool struct {
	logger hclog.Logger

	mu    sync.Mutex
	procs map[poolKey]*pooledProcess
	// alone are the keys whose process said it cannot be shared: their
	// servers start a process each at once, instead of each waiting for
	// the previous one's start to learn it.
	alone map[poolKey]bool
}

// NewPluginPool returns an empty pool; the shared processes' own log lines
// go to logger (each line about a connection names its server).
func NewPluginPool(logger hclog.Logger) *PluginPool {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &PluginPool{logger: logger, procs: map[poolKey]*pooledProcess{}, alone: map[poolKey]bool{}}
}

// poolKey identifies the processes servers may share: a sha256 of the
// executable's path, its pin and the process environment.
type poolKey [sha256.Size]byte

func keyOf(cfg pluginapi.ClientConfig) poolKey {
	h := sha256.New()
	for _, s := range append([]string{cfg.Path, cfg.SHA256}, cfg.Env...) {
		fmt.Fprintf(h, "%d:%s\x00", len(s), s)
	}
	var k poolKey
	h.Sum(k[:0])
	return k
}

// pooledProcess is one plugin process of the pool. client, err and
// shareable are set once, before ready is closed; refs is guarded by the
// pool's mutex.
type pooledProcess struct {
	ready     chan struct{}
	client    *pluginapi.Client
	err       error
	shareable bool
	refs      int
}

// launched reports whether the process has finished starting.
func (p *pooledProcess) launched() bool {
	select {
	case <-p.ready:
		return true
	default:
		return false
	}
}

// describeTimeout bounds the Describe that decides whether a new process
// may be shared.
const describeTimeout = 5 * time.Second

// acquire returns a handle on a process for cfg: a running shared one, or
// a new one, shared from now on if it can be. Each handle must be let go
// with Kill.
func (p *PluginPool) acquire(cfg pluginapi.ClientConfig) (pluginProcess, error) {
	key := keyOf(cfg)
	for {
		proc, starter := p.join(key)
		if starter {
			p.start(key, proc, cfg)
		} else {
			<-proc.ready
		}
		switch {
		case proc.err != nil:
			p.release(key, proc)
			return nil, proc.err
		case proc.shareable || starter:
			return &sharedProcess{pool: p, key: key, proc: proc}, nil
		}
		// The process turned out not to be shareable and belongs to the
		// server that started it: start one of our own.
		p.release(key, proc)
	}
}

// join takes a reference on the pool's live process for key, or on a new
// entry that the caller (starter) must start: one the pool keeps for others
// to join, or, for a key whose process cannot be shared, one of the
// caller's own.
func (p *PluginPool) join(key poolKey) (proc *pooledProcess, starter bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.alone[key] {
		return &pooledProcess{ready: make(chan struct{}), refs: 1}, true
	}
	proc = p.procs[key]
	if proc != nil && proc.launched() && (proc.err != nil || !proc.shareable || proc.client.Exited()) {
		delete(p.procs, key) // dead or not for sharing: its holders keep their references
		proc = nil
	}
	if proc == nil {
		proc = &pooledProcess{ready: make(chan struct{})}
		p.procs[key] = proc
		starter = true
	}
	proc.refs++
	return proc, starter
}

// start launches proc's process and asks it whether it may be shared.
func (p *PluginPool) start(key poolKey, proc *pooledProcess, cfg pluginapi.ClientConfig) {
	defer close(proc.ready)
	cfg.Logger = p.logger.Named("plugin")
	proc.client, proc.err = pluginapi.NewClient(cfg)
	if proc.err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), describeTimeout)
	defer cancel()
	d, err := proc.client.Transport().Describe(ctx)
	proc.shareable = err == nil && d.HasFeature(pluginapi.FeatureSharedProcess) && d.HasFeature(pluginapi.FeatureDirectPipes)
	if !proc.shareable {
		p.mu.Lock()
		if err == nil { // it answered: it cannot be shared
			p.alone[key] = true
		}
		if p.procs[key] == proc {
			delete(p.procs, key)
		}
		p.mu.Unlock()
	}
}

// release drops one reference on proc; the last one ends the process.
func (p *PluginPool) release(key poolKey, proc *pooledProcess) {
	p.mu.Lock()
	proc.refs--
	last := proc.refs == 0
	if last && p.procs[key] == proc {
		delete(p.procs, key)
	}
	p.mu.Unlock()
	if last && proc.client != nil {
		proc.client.Kill()
	}
}

// sharedProcess is one server's handle on a pooled process: Kill lets the
// process go (ending it if no other server holds it).
type sharedProcess struct {
	pool *PluginPool
	key  poolKey
	proc *pooledProcess
	once sync.Once
}

func (s *sharedProcess) Transport() pluginapi.Transport { return s.proc.client.Transport() }

func (s *sharedProcess) ConnectionDiagnostics(ctx context.Context, id string) (pluginapi.Diagnostics, error) {
	return s.proc.client.ConnectionDiagnostics(ctx, id)
}

func (s *sharedProcess) Exited() bool { return s.proc.client.Exited() }
func (s *sharedProcess) PID() int     { return s.proc.client.PID() }
func (s *sharedProcess) Kill()        { s.once.Do(func() { s.pool.release(s.key, s.proc) }) }
