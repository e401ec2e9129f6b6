package redisstore_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/testredis"
	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/redisstore"
)

// logBuffer collects log lines; safe for concurrent use.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// openLogged opens a store on url whose log goes to the returned buffer
// (debug level and up).
func openLogged(t *testing.T, url string) (*redisstore.Store, *logBuffer) {
	t.Helper()
	log := &logBuffer{}
	s, err := redisstore.Open(redisstore.Options{URL: secret.URL(url), Prefix: "health:", IdleTimeout: time.Minute,
		Logger: hclog.New(&hclog.LoggerOptions{Output: log, Level: hclog.Debug})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, log
}

// command runs a command on srv and fails the test unless it answers +OK.
func command(t *testing.T, srv *testredis.Server, args ...string) {
	t.Helper()
	if reply, err := srv.Command(args...); err != nil || reply != "+OK" {
		t.Fatalf("%v: %q %v", args, reply, err)
	}
}

// withUser adds the user plughost (password hunter2secret) to srv and
// returns the URL of database 0 as that user; srv.Command stays the
// default user's, without a password.
func withUser(t *testing.T, srv *testredis.Server) string {
	t.Helper()
	command(t, srv, "ACL", "SETUSER", "plughost", "on", ">hunter2secret", "~*", "&*", "+@all")
	return strings.Replace(srv.URL(0), "redis://", "redis://plughost:hunter2secret@", 1)
}

// A Redis that answers PING but refuses writes — out of memory under
// noeviction, or a read-only replica — fails Check with the error Redis
// sent, quoted; the store's name has its password masked. Once Redis takes
// writes again, Check passes.
func TestCheckRefusedWrites(t *testing.T) {
	srv := testredis.New(t)
	s, _ := openLogged(t, withUser(t, srv))
	ctx := context.Background()
	if w, err := s.Check(ctx); err != nil || w != "" {
		t.Fatalf("Check of a healthy Redis: %q %v", w, err)
	}
	for _, c := range []struct {
		name      string
		break_    []string
		repair    []string
		wantQuote string
	}{
		{"out of memory", []string{"CONFIG", "SET", "maxmemory", "1"}, []string{"CONFIG", "SET", "maxmemory", "0"}, `"OOM command not allowed`},
		// A replica of a master that is not there: read-only all the same.
		{"read-only replica", []string{"REPLICAOF", "127.0.0.1", "1"}, []string{"REPLICAOF", "NO", "ONE"}, `"READONLY You can't write against a read only replica.`},
	} {
		t.Run(c.name, func(t *testing.T) {
			command(t, srv, c.break_...)
			if err := s.Ping(ctx); err != nil {
				t.Fatalf("Ping: %v (PING must still work: that is the point)", err)
			}
			_, err := s.Check(ctx)
			if !errors.Is(err, host.ErrStoreUnavailable) || !strings.Contains(err.Error(), "redis at redis://plughost:****@127.0.0.1:") ||
				!strings.Contains(err.Error(), "answered a test write with an error: "+c.wantQuote) || strings.Contains(err.Error(), "hunter2secret") {
				t.Errorf("Check: %v, want ErrStoreUnavailable quoting %s, the store named, password masked", err, c.wantQuote)
			}
			command(t, srv, c.repair...)
			if w, err := s.Check(ctx); err != nil || w != "" {
				t.Errorf("Check after repair: %q %v", w, err)
			}
		})
	}
}

// A Redis that evicts keys when full is a warning — logged once at WARN,
// naming the policy, the store (password masked) and the fix — and not an
// error; going back to noeviction clears it.
func TestCheckEvictionWarning(t *testing.T) {
	srv := testredis.New(t)
	command(t, srv, "CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
	s, log := openLogged(t, withUser(t, srv))
	ctx := context.Background()
	for range 2 {
		w, err := s.Check(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"redis at redis://plughost:****@127.0.0.1:", "maxmemory-policy allkeys-lru", "set maxmemory-policy noeviction", "enough memory"} {
			if !strings.Contains(w, want) {
				t.Errorf("warning %q lacks %q", w, want)
			}
		}
	}
	logged := log.String()
	if n := strings.Count(logged, "[WARN]"); n != 1 || !strings.Contains(logged, "maxmemory-policy allkeys-lru") || strings.Contains(logged, "hunter2secret") {
		t.Errorf("log after two checks: want one WARN naming the policy, password masked:\n%s", logged)
	}
	command(t, srv, "CONFIG", "SET", "maxmemory-policy", "noeviction")
	if w, err := s.Check(ctx); err != nil || w != "" {
		t.Errorf("Check with noeviction: %q %v", w, err)
	}
}

// Managed Redis often renames or forbids CONFIG: the policy is then read
// from INFO memory; with INFO refused too, Check says so at debug level
// and passes without a warning.
func TestCheckWithoutConfig(t *testing.T) {
	t.Run("INFO instead", func(t *testing.T) {
		srv := testredis.NewWith(t, "--maxmemory-policy", "volatile-lru", "--rename-command", "CONFIG", "")
		s, log := openLogged(t, srv.URL(0))
		for range 2 {
			w, err := s.Check(context.Background())
			if err != nil || !strings.Contains(w, "maxmemory-policy volatile-lru") {
				t.Errorf("Check with CONFIG renamed: %q %v, want the warning from INFO memory", w, err)
			}
		}
		if n := strings.Count(log.String(), "[WARN]"); n != 1 {
			t.Errorf("log: want one WARN:\n%s", log)
		}
	})
	t.Run("neither", func(t *testing.T) {
		srv := testredis.NewWith(t, "--maxmemory-policy", "volatile-lru", "--rename-command", "CONFIG", "", "--rename-command", "INFO", "")
		s, log := openLogged(t, srv.URL(0))
		w, err := s.Check(context.Background())
		if err != nil || w != "" {
			t.Errorf("Check with CONFIG and INFO renamed: %q %v, want no error and no warning", w, err)
		}
		if l := log.String(); !strings.Contains(l, "[DEBUG]") || !strings.Contains(l, "cannot read Redis's maxmemory-policy") ||
			!strings.Contains(l, "CONFIG GET maxmemory-policy: ERR unknown command") {
			t.Errorf("log: want a debug line saying the policy cannot be read, and why:\n%s", l)
		}
	})
}
