package demoserver

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestGenerateTextExactLength(t *testing.T) {
	type tc struct {
		n    int
		seed int64
	}
	var tests []tc
	for _, n := range []int{1, 2, 3, 79, 80, 81, 1000, 4096, 123_457, 1_000_000} {
		for _, seed := range []int64{0, 1, -7} {
			tests = append(tests, tc{n, seed})
		}
	}
	if !testing.Short() {
		tests = append(tests, tc{maxGeneratedChars, 3})
	}
	for _, tt := range tests {
		got := generateText(tt.n, tt.seed)
		if c := utf8.RuneCountInString(got); c != tt.n {
			t.Errorf("generateText(%d, %d) has %d characters", tt.n, tt.seed, c)
		}
	}
}

func TestGenerateTextDeterministic(t *testing.T) {
	a, b := generateText(5000, 42), generateText(5000, 42)
	if a != b {
		t.Error("generateText with the same seed differs between calls")
	}
	if generateText(5000, 43) == a {
		t.Error("generateText with different seeds gives the same text")
	}
	// A longer text extends a shorter one with the same seed.
	if !strings.HasPrefix(generateText(20_000, 42), a) {
		t.Error("generateText(20000, 42) does not start with generateText(5000, 42)")
	}
}

func TestGenerateTextLooksLikeProse(t *testing.T) {
	text := generateText(10_000, 0)
	if !strings.HasPrefix(text, strings.ToUpper(text[:1])) {
		t.Errorf("text does not start with a capital letter: %q", text[:20])
	}
	for _, want := range []string{". ", "\n\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("text has no %q", want)
		}
	}
	for i, r := range text {
		if r > 127 {
			t.Fatalf("non-ASCII %q at %d", r, i)
		}
	}
}
