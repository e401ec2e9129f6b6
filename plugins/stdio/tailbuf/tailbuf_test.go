package tailbuf

import (
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBuffer(t *testing.T) {
	tests := []struct {
		name          string
		size          int
		writes        []string
		want          string
		wantTruncated bool
	}{
		{"empty", 4, nil, "", false},
		{"under capacity", 8, []string{"ab", "cd"}, "abcd", false},
		{"exactly full", 4, []string{"ab", "cd"}, "abcd", false},
		{"wraps", 4, []string{"abc", "def"}, "cdef", true},
		{"wraps several times", 3, []string{"ab", "cd", "ef", "g"}, "efg", true},
		{"single write larger than capacity", 4, []string{"0123456789"}, "6789", true},
		{"large write after wrap", 4, []string{"abc", "defgh", "ij"}, "ghij", true},
		{"empty writes", 4, []string{"", "ab", "", "c"}, "abc", false},
		{"size clamped to 1", 0, []string{"xyz"}, "z", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(tt.size)
			total := 0
			for _, w := range tt.writes {
				n, err := b.Write([]byte(w))
				if err != nil || n != len(w) {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
				total += len(w)
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("String() mismatch (-want +got):\n%s", diff)
			}
			if got := b.Written(); got != int64(total) {
				t.Errorf("Written() = %d, want %d", got, total)
			}
			if got := b.Truncated(); got != tt.wantTruncated {
				t.Errorf("Truncated() = %v, want %v", got, tt.wantTruncated)
			}
		})
	}
}

func TestLastLines(t *testing.T) {
	tests := []struct {
		name string
		size int
		data string
		n    int
		want string
	}{
		{"empty", 64, "", 3, ""},
		{"zero lines", 64, "a\nb\n", 0, ""},
		{"fewer lines than n", 64, "a\nb\n", 5, "a\nb"},
		{"no trailing newline", 64, "a\nb\nc", 2, "b\nc"},
		{"last n", 64, "1\n2\n3\n4\n", 2, "3\n4"},
		{"blank lines count", 64, "a\n\nb\n", 2, "\nb"},
		{"partial first line dropped", 8, "first line\nab\ncd\n", 5, "ab\ncd"},
		{"single partial line kept", 4, "abcdefgh", 3, "efgh"},
		{"exact capacity is not truncated", 5, "ab\ncd", 5, "ab\ncd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(tt.size)
			b.Write([]byte(tt.data))
			if diff := cmp.Diff(tt.want, b.LastLines(tt.n)); diff != "" {
				t.Errorf("LastLines(%d) mismatch (-want +got):\n%s", tt.n, diff)
			}
		})
	}
}

func TestConcurrentWrites(t *testing.T) {
	b := New(1000)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 500; j++ {
				b.Write([]byte("0123456789\n"))
				_ = b.LastLines(3)
			}
		}()
	}
	wg.Wait()
	if got := b.Written(); got != 8*500*11 {
		t.Errorf("Written() = %d", got)
	}
	// Every write is the same 11-byte line, so the tail is whole lines once
	// the partial first one is dropped.
	want := strings.Repeat("0123456789\n", 3)
	if got := b.LastLines(3) + "\n"; got != want {
		t.Errorf("LastLines(3) = %q", got)
	}
}

func FuzzBuffer(f *testing.F) {
	f.Add(uint8(5), []byte("hello world"), uint8(3))
	f.Fuzz(func(t *testing.T, size uint8, data []byte, chunk uint8) {
		if len(data) > 128 {
			t.Skip() // long inputs add nothing and slow minimization down
		}
		b := New(int(size))
		step := int(chunk) + 1
		for i := 0; i < len(data); i += step {
			b.Write(data[i:min(i+step, len(data))])
		}
		keep := max(int(size), 1)
		want := data[max(0, len(data)-keep):]
		if got := b.Bytes(); string(got) != string(want) {
			t.Fatalf("Bytes() = %q, want %q", got, want)
		}
	})
}
