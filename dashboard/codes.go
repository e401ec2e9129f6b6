package dashboard

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"
)

// CodeTTL is how long a login code may be exchanged.
const CodeTTL = 2 * time.Minute

// maxCodes bounds the codes waiting to be exchanged; the oldest is
// dropped to make room, so a client asking in a loop cannot grow memory.
const maxCodes = 64

// ErrBadCode is returned for a code that is unknown, used or expired. The
// three are not told apart: the caller learns nothing by guessing.
var ErrBadCode = errors.New("the login code is unknown, already used or expired; run `plughost dashboard` again for a new one")

// Codes issues and redeems one-time login codes. It is safe for concurrent
// use.
type Codes struct {
	now func() time.Time

	mu      sync.Mutex
	pending []pendingCode // oldest first
}

type pendingCode struct {
	code    []byte
	expires time.Time
}

// NewCodes returns an empty store reading time from now (time.Now when nil).
func NewCodes(now func() time.Time) *Codes {
	if now == nil {
		now = time.Now
	}
	return &Codes{now: now}
}

// Issue returns a new code: 128 random bits as 32 hex characters, valid
// for CodeTTL and for one exchange.
func (c *Codes) Issue() (string, error) {
	raw := make([]byte, 16)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("login code: random source: %w", err)
	}
	code := hex.EncodeToString(raw)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropExpired()
	if len(c.pending) >= maxCodes {
		c.pending = c.pending[1:]
	}
	c.pending = append(c.pending, pendingCode{code: []byte(code), expires: c.now().Add(CodeTTL)})
	return code, nil
}

// Redeem consumes code: nil the first time a valid code is given,
// ErrBadCode otherwise. Every pending code is compared in constant time,
// so the answer's timing says nothing about how close a guess was.
func (c *Codes) Redeem(code string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropExpired()
	found := -1
	for i, p := range c.pending {
		if subtle.ConstantTimeCompare(p.code, []byte(code)) == 1 {
			found = i
		}
	}
	if found < 0 {
		return ErrBadCode
	}
	c.pending = append(c.pending[:found], c.pending[found+1:]...)
	return nil
}

// dropExpired removes the codes past their expiry; c.mu is held.
func (c *Codes) dropExpired() {
	now := c.now()
	kept := c.pending[:0]
	for _, p := range c.pending {
		if now.Before(p.expires) {
			kept = append(kept, p)
		}
	}
	c.pending = kept
}
