package redisstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Health. A Redis that answers PING may still refuse every write — out of
// memory under maxmemory-policy noeviction, or a read-only replica — and
// then nearly every request fails while a PING-based readiness check says
// all is well. And a Redis that evicts keys when full drops sessions
// without a word: their clients get 404 and start over. Check covers both
// in one round trip.

// readyTTL is how long the key Check writes lives: long enough to be seen
// by whoever looks, short enough never to accumulate.
const readyTTL = 10 * time.Second

// health is what Check remembers between calls. Safe for concurrent use.
type health struct {
	mu sync.Mutex
	// noConfig: CONFIG was refused (managed Redis often renames or
	// forbids it), so the policy is read from INFO memory instead.
	noConfig bool
	// warned is the evicting policy last warned about; "" when none.
	warned string
	// unknownTold: that the policy cannot be read was logged once.
	unknownTold bool
}

// Check reports whether Redis takes writes now, and warns when it evicts
// keys. It writes a short-lived key (SET <prefix>ready:<id> PX 10000, a
// command Redis refuses when out of memory or read-only) and reads
// maxmemory-policy in the same round trip (CONFIG GET, or INFO memory
// where CONFIG is refused). A refused write is an error wrapping
// host.ErrStoreUnavailable that quotes Redis; an evicting policy is a
// warning (and a WARN log line the first time it is seen), not an error:
// the store still works. A policy that cannot be read is logged at debug
// level and not held against the store.
func (s *Store) Check(ctx context.Context) (warning string, err error) {
	s.health.mu.Lock()
	noConfig := s.health.noConfig
	s.health.mu.Unlock()
	var set *redis.StatusCmd
	var policy func() (string, error)
	_, _ = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error { // each command's own error is read below
		set = p.Set(ctx, s.opts.Prefix+"ready:"+s.instance, "1", readyTTL)
		if noConfig {
			info := p.Info(ctx, "memory")
			policy = func() (string, error) { return infoPolicy(info) }
		} else {
			cfg := p.ConfigGet(ctx, "maxmemory-policy")
			policy = func() (string, error) { return configPolicy(cfg) }
		}
		return nil
	})
	if err := set.Err(); err != nil {
		return "", s.unavailable(ctx, "a test write", err)
	}
	p, err := policy()
	var refused redis.Error
	if err != nil && !noConfig && errors.As(err, &refused) {
		s.health.mu.Lock()
		s.health.noConfig = true
		s.health.mu.Unlock()
		var ierr error
		if p, ierr = infoPolicy(s.rdb.Info(ctx, "memory")); ierr != nil {
			err = fmt.Errorf("CONFIG GET maxmemory-policy: %w; INFO memory: %w", err, ierr)
		} else {
			err = nil
		}
	}
	if err != nil {
		s.policyUnknown(err)
		return "", nil
	}
	return s.evictionWarning(p), nil
}

// configPolicy reads maxmemory-policy from CONFIG GET's reply.
func configPolicy(cmd *redis.MapStringStringCmd) (string, error) {
	m, err := cmd.Result()
	if err != nil {
		return "", err
	}
	p, ok := m["maxmemory-policy"]
	if !ok {
		return "", errors.New("CONFIG GET maxmemory-policy answered without it")
	}
	return p, nil
}

// infoPolicy reads the maxmemory_policy field of INFO memory.
func infoPolicy(cmd *redis.StringCmd) (string, error) {
	text, err := cmd.Result()
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "maxmemory_policy:"); ok {
			return v, nil
		}
	}
	return "", errors.New("INFO memory has no maxmemory_policy field")
}

// policyUnknown logs, once, that the eviction policy could not be read.
func (s *Store) policyUnknown(err error) {
	s.health.mu.Lock()
	told := s.health.unknownTold
	s.health.unknownTold = true
	s.health.mu.Unlock()
	if !told {
		s.logger.Debug("cannot read Redis's maxmemory-policy, so whether it evicts sessions is not checked",
			"store", s.String(), "error", err)
	}
}

// evictionWarning returns the warning for policy ("" for noeviction) and
// logs it when the policy differs from the one last warned about.
func (s *Store) evictionWarning(policy string) string {
	s.health.mu.Lock()
	last := s.health.warned
	if policy == "noeviction" {
		s.health.warned = ""
	} else {
		s.health.warned = policy
	}
	s.health.mu.Unlock()
	if policy == "noeviction" {
		if last != "" {
			s.logger.Info("Redis no longer evicts keys when full (maxmemory-policy noeviction)", "store", s.String())
		}
		return ""
	}
	w := fmt.Sprintf("%s evicts keys when it is full (maxmemory-policy %s): sessions may vanish without a word and their clients start over; "+
		"set maxmemory-policy noeviction (a full Redis then refuses writes and /readyz says so) and give Redis enough memory for every session", s, policy)
	if policy != last {
		s.logger.Warn(w)
	}
	return w
}
