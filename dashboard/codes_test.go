package dashboard

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/fakeclock"
)

func TestCodes(t *testing.T) {
	tests := []struct {
		name   string
		redeem func(t *testing.T, c *Codes, clock *fakeclock.Clock, code string) error
		want   error
	}{
		{"fresh code", func(t *testing.T, c *Codes, _ *fakeclock.Clock, code string) error { return c.Redeem(code) }, nil},
		{"just before expiry", func(t *testing.T, c *Codes, clock *fakeclock.Clock, code string) error {
			clock.Advance(CodeTTL - time.Nanosecond)
			return c.Redeem(code)
		}, nil},
		{"expired", func(t *testing.T, c *Codes, clock *fakeclock.Clock, code string) error {
			clock.Advance(CodeTTL)
			return c.Redeem(code)
		}, ErrBadCode},
		{"used twice", func(t *testing.T, c *Codes, _ *fakeclock.Clock, code string) error {
			if err := c.Redeem(code); err != nil {
				t.Fatalf("first use: %v", err)
			}
			return c.Redeem(code)
		}, ErrBadCode},
		{"unknown", func(t *testing.T, c *Codes, _ *fakeclock.Clock, code string) error {
			return c.Redeem("0123456789abcdef0123456789abcdef")
		}, ErrBadCode},
		{"empty", func(t *testing.T, c *Codes, _ *fakeclock.Clock, code string) error { return c.Redeem("") }, ErrBadCode},
		{"prefix", func(t *testing.T, c *Codes, _ *fakeclock.Clock, code string) error { return c.Redeem(code[:31]) }, ErrBadCode},
		{"another code's use leaves this one", func(t *testing.T, c *Codes, _ *fakeclock.Clock, code string) error {
			other, err := c.Issue()
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Redeem(other); err != nil {
				t.Fatalf("other code: %v", err)
			}
			return c.Redeem(code)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := fakeclock.New(time.Unix(1_700_000_000, 0))
			c := NewCodes(clock.Now)
			code, err := c.Issue()
			if err != nil {
				t.Fatal(err)
			}
			if len(code) != 32 {
				t.Fatalf("code %q has %d characters, want 32 (128 bits in hex)", code, len(code))
			}
			if err := tt.redeem(t, c, clock, code); !errors.Is(err, tt.want) {
				t.Errorf("Redeem: %v, want %v", err, tt.want)
			}
		})
	}
}

// Codes are random and distinct, and the store stays bounded however many
// are asked for: the oldest make room.
func TestCodesBounded(t *testing.T) {
	c := NewCodes(nil)
	first, _ := c.Issue()
	seen := map[string]bool{first: true}
	for range maxCodes {
		code, err := c.Issue()
		if err != nil {
			t.Fatal(err)
		}
		if seen[code] {
			t.Fatalf("code %q issued twice", code)
		}
		seen[code] = true
	}
	if n := len(c.pending); n != maxCodes {
		t.Errorf("%d codes pending, want the bound %d", n, maxCodes)
	}
	if err := c.Redeem(first); !errors.Is(err, ErrBadCode) {
		t.Errorf("the oldest code survived the bound: %v", err)
	}
}

func TestCodesConcurrent(t *testing.T) {
	c := NewCodes(nil)
	code, _ := c.Issue()
	var wins sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 16 {
		wins.Go(func() {
			if c.Redeem(code) == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		})
	}
	wins.Wait()
	if ok != 1 {
		t.Errorf("the code was redeemed %d times, want once", ok)
	}
}
