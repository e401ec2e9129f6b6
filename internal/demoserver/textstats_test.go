package demoserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestComputeTextStats(t *testing.T) {
	tests := []struct {
		name string
		text string
		want textStats
	}{
		{
			name: "empty",
			text: "",
			want: textStats{TopWords: []wordCount{}},
		},
		{
			name: "one word no newline",
			text: "hello",
			want: textStats{Chars: 5, Bytes: 5, Words: 1, UniqueWords: 1, Lines: 1, Sentences: 1,
				TopWords: []wordCount{{"hello", 1}}},
		},
		{
			name: "final newline is not a new line",
			text: "a b\n",
			want: textStats{Chars: 4, Bytes: 4, Words: 2, UniqueWords: 2, Lines: 1, Sentences: 1,
				TopWords: []wordCount{{"a", 1}, {"b", 1}}},
		},
		{
			name: "sentences, case folding and ties",
			text: "The cat sat. The dog ran! Did the cat run? Yes",
			want: textStats{Chars: 46, Bytes: 46, Words: 11, UniqueWords: 8, Lines: 1, Sentences: 4,
				TopWords: []wordCount{{"the", 3}, {"cat", 2}, {"did", 1}, {"dog", 1}, {"ran", 1}}},
		},
		{
			name: "decimals do not split sentences, closers after terminators do",
			text: "Pi is 3.14 (roughly.) Or 3.1416.\n\nSecond line!\n",
			want: textStats{Chars: 47, Bytes: 47, Words: 8, UniqueWords: 8, Lines: 3, Sentences: 3,
				TopWords: []wordCount{{"3.14", 1}, {"3.1416", 1}, {"is", 1}, {"line", 1}, {"or", 1}}},
		},
		{
			name: "unicode: runes vs bytes, punctuation-only fields",
			text: "Grüße — «Welt»… don't well-known",
			want: textStats{Chars: 32, Bytes: 40, Words: 4, UniqueWords: 4, Lines: 1, Sentences: 2,
				TopWords: []wordCount{{"don't", 1}, {"grüße", 1}, {"well-known", 1}, {"welt", 1}}},
		},
		{
			name: "punctuation only",
			text: "... !!",
			want: textStats{Chars: 6, Bytes: 6, Lines: 1, TopWords: []wordCount{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := computeTextStats(tt.text)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("computeTextStats(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}
