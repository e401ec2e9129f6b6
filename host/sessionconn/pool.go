package sessionconn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/host/routing"
	"github.com/plughost/plughost/host/supervisor"
)

// Options configure a Pool.
type Options struct {
	// Spec is the server's spec; each session connection runs a copy
	// whose Router is the session's own.
	Spec supervisor.Spec
	// Router makes the session routers (Router.ForSession).
	Router *routing.Router
	// Idle closes a connection unused for this long (> 0).
	Idle time.Duration
	// Max bounds the connections open at once (> 0); MaxSetting names the
	// setting that raises it, for the error.
	Max        int
	MaxSetting string
	// Shared returns the tool definitions of the server's shared
	// connection (nil while it has none), which a session connection's
	// are compared with.
	Shared func() []json.RawMessage
	// Logger receives the pool's and the connections' logs.
	Logger hclog.Logger
	// OnChange (may be nil) is called, never under a lock, when the count
	// of connections or the tool-list note changes.
	OnChange func()
}

// Pool is one server's session connections. Safe for concurrent use; Close
// stops every connection and waits until they are gone.
type Pool struct {
	opts   Options
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  map[string]*conn
	closed bool
	note   string // the last tool-list difference seen, for the status
}

// conn is one session's connection.
type conn struct {
	sup      *supervisor.Server
	stop     context.CancelFunc
	done     chan struct{} // closed when its Run returned
	users    int           // acquisitions not yet released; under Pool.mu
	lastUsed time.Time     // under Pool.mu
	checked  bool          // its tools were compared; under Pool.mu

	changeMu sync.Mutex
	changed  chan struct{} // closed and replaced at every status change
}

// New returns a pool of opts; Run it while the server runs.
func New(opts Options) *Pool {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.OnChange == nil {
		opts.OnChange = func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Pool{opts: opts, ctx: ctx, cancel: cancel, conns: map[string]*conn{}}
}

// Run closes idle connections until ctx ends, then closes the pool
// (Close) and returns once every connection's processes are gone.
func (p *Pool) Run(ctx context.Context) {
	defer p.Close()
	tick := time.NewTicker(min(max(p.opts.Idle/4, 50*time.Millisecond), 30*time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			p.closeIdle(now)
		}
	}
}

// LimitError refuses a session a connection when max_sessions are open.
type LimitError struct {
	// Server is the server's name, Max the limit and Setting its path.
	Server  string
	Max     int
	Setting string
}

// Error implements error.
func (e *LimitError) Error() string {
	return fmt.Sprintf("server %q: %d sessions already have their own connection (isolation \"session\"), the most %s allows; raise %s, end idle sessions, or set isolation to \"shared\"",
		e.Server, e.Max, e.Setting, e.Setting)
}

// Acquire returns session's connection, opening it on first use and
// waiting until it is connected (or ctx ends); release it when the request
// is answered, after which it counts as unused. A connection that failed
// is an error saying why (the supervisor keeps retrying it).
func (p *Pool) Acquire(ctx context.Context, session string) (*supervisor.Server, func(), error) {
	opened := p.Open()
	c, err := p.take(session)
	if err != nil {
		return nil, nil, err
	}
	if p.Open() != opened {
		p.changed()
	}
	release := func() {
		p.mu.Lock()
		c.users--
		c.lastUsed = time.Now()
		p.mu.Unlock()
	}
	if err := p.await(ctx, session, c); err != nil {
		release()
		return nil, nil, err
	}
	return c.sup, release, nil
}

// take returns session's connection, started if new, counted as in use.
func (p *Pool) take(session string) (*conn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("server %q: stopped; its session connections are closed", p.opts.Spec.Name)
	}
	c := p.conns[session]
	if c == nil {
		if len(p.conns) >= p.opts.Max {
			return nil, &LimitError{Server: p.opts.Spec.Name, Max: p.opts.Max, Setting: p.opts.MaxSetting}
		}
		c = p.start(session)
		p.conns[session] = c
	}
	c.users++
	c.lastUsed = time.Now()
	return c, nil
}

// changed calls OnChange; callers do not hold mu.
func (p *Pool) changed() { p.opts.OnChange() }

// start runs a new connection for session. Callers hold mu.
func (p *Pool) start(session string) *conn {
	spec := p.opts.Spec
	sr := p.opts.Router.ForSession(session)
	spec.Router = sr
	c := &conn{done: make(chan struct{}), changed: make(chan struct{})}
	c.sup = supervisor.New(spec, p.opts.Logger.With("session", ShortID(session)), c.signal)
	sr.Bind(c.sup)
	ctx, stop := context.WithCancel(p.ctx)
	c.stop = stop
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(c.done)
		c.sup.Run(ctx)
	}()
	return c
}

// signal wakes those waiting for c's status.
func (c *conn) signal() {
	c.changeMu.Lock()
	close(c.changed)
	c.changed = make(chan struct{})
	c.changeMu.Unlock()
}

func (c *conn) changes() <-chan struct{} {
	c.changeMu.Lock()
	defer c.changeMu.Unlock()
	return c.changed
}

// await waits until c is connected; an error when it failed or stopped.
func (p *Pool) await(ctx context.Context, session string, c *conn) error {
	for {
		ch := c.changes()
		st := c.sup.Status()
		switch st.State {
		case supervisor.StateConnected:
			p.check(session, c)
			return nil
		case supervisor.StateConnecting:
		default:
			return fmt.Errorf("server %q: the session's own connection (isolation \"session\") is %s: %s",
				p.opts.Spec.Name, st.State, st.LastError)
		}
		select {
		case <-ch:
		case <-c.done:
			return fmt.Errorf("server %q: the session's own connection was closed (the session ended or the server stopped)", p.opts.Spec.Name)
		case <-ctx.Done():
			return fmt.Errorf("server %q: waiting for the session's own connection: %w", p.opts.Spec.Name, ctx.Err())
		}
	}
}

// check compares, once per connection, its tools with the shared
// connection's: a server that lists other tools per connection is
// reported, never merged (the tool list shows the shared connection's).
func (p *Pool) check(session string, c *conn) {
	p.mu.Lock()
	if c.checked {
		p.mu.Unlock()
		return
	}
	c.checked = true
	p.mu.Unlock()
	shared, own := p.opts.Shared(), c.sup.Definitions()
	if shared == nil || own == nil || sameTools(shared, own) {
		return
	}
	note := fmt.Sprintf("session %s's own connection lists %d tools that differ from the %d of the shared connection; clients see the shared list",
		ShortID(session), len(own), len(shared))
	p.opts.Logger.Warn("a session connection lists other tools than the shared connection; not merged",
		"session", ShortID(session), "session_tools", len(own), "shared_tools", len(shared))
	p.mu.Lock()
	p.note = note
	p.mu.Unlock()
	p.changed()
}

// sameTools reports whether two tool lists hold the same definitions, in
// any order.
func sameTools(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	sorted := func(l []json.RawMessage) []json.RawMessage {
		out := slices.Clone(l)
		slices.SortFunc(out, func(x, y json.RawMessage) int { return bytes.Compare(x, y) })
		return out
	}
	return slices.EqualFunc(sorted(a), sorted(b), func(x, y json.RawMessage) bool { return bytes.Equal(x, y) })
}

// CloseSession closes session's connection, if it has one; its processes
// are stopped in the background (Close waits for them).
func (p *Pool) CloseSession(session string) {
	p.mu.Lock()
	c := p.conns[session]
	delete(p.conns, session)
	p.mu.Unlock()
	if c != nil {
		c.stop()
		p.changed()
	}
}

// Find returns session's connection if it has one open (for notifications
// of its client, which never open one).
func (p *Pool) Find(session string) (*supervisor.Server, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.conns[session]
	if c == nil {
		return nil, false
	}
	return c.sup, true
}

// Open returns how many session connections are open.
func (p *Pool) Open() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

// Note returns the last tool-list difference seen ("" when none).
func (p *Pool) Note() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.note
}

// Close stops every connection and waits until their processes are gone.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	p.conns = map[string]*conn{}
	p.mu.Unlock()
	p.cancel()
	p.wg.Wait()
}

// closeIdle closes the connections unused since before now-Idle.
func (p *Pool) closeIdle(now time.Time) {
	p.mu.Lock()
	var idle []*conn
	for id, c := range p.conns {
		if c.users == 0 && now.Sub(c.lastUsed) >= p.opts.Idle {
			idle = append(idle, c)
			delete(p.conns, id)
			p.opts.Logger.Debug("closing an idle session connection", "session", ShortID(id))
		}
	}
	p.mu.Unlock()
	for _, c := range idle {
		c.stop()
	}
	if len(idle) > 0 {
		p.changed()
	}
}

// ShortID is a session id as logs and statuses show it: enough to tell
// sessions apart, too little to take one over (an id is a bearer secret).
func ShortID(id string) string {
	if len(id) > 6 {
		return id[:6] + "…"
	}
	return id
}
