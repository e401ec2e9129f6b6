package demoserver

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// topWordCount is how many of the most frequent words text_stats reports.
const topWordCount = 5

type textStatsArgs struct {
	Text string `json:"text"`
}

// textStats is the text_stats result.
type textStats struct {
	Chars       int         `json:"chars" jsonschema:"number of characters (Unicode code points)"`
	Bytes       int         `json:"bytes" jsonschema:"length in bytes of the UTF-8 encoding"`
	Words       int         `json:"words" jsonschema:"number of words"`
	UniqueWords int         `json:"unique_words" jsonschema:"number of distinct words, ignoring case"`
	Lines       int         `json:"lines" jsonschema:"number of lines; a final newline does not start a new line"`
	Sentences   int         `json:"sentences" jsonschema:"number of sentences"`
	TopWords    []wordCount `json:"top_words" jsonschema:"most frequent words, most frequent first"`
}

// wordCount is one entry of textStats.TopWords.
type wordCount struct {
	Word  string `json:"word" jsonschema:"the word in lower case"`
	Count int    `json:"count" jsonschema:"how often it occurs"`
}

func textStatsTool() server.ServerTool {
	tool := newTool("text_stats",
		"Counts the characters, bytes, words, distinct words, lines and sentences of a text and lists its "+
			"5 most frequent words (case-insensitive; ties in alphabetical order). Returns a JSON object.",
		hints("Text statistics", true),
		mcp.WithString("text", mcp.Required(), mcp.Description("Text to analyse.")),
		mcp.WithOutputSchema[textStats](),
	)
	return server.ServerTool{Tool: tool, Handler: mcp.NewTypedToolHandler(textStatsHandler)}
}

func textStatsHandler(_ context.Context, _ mcp.CallToolRequest, args textStatsArgs) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultJSON(computeTextStats(args.Text))
}

func computeTextStats(text string) textStats {
	words := splitWords(text)
	counts := make(map[string]int, len(words))
	for _, w := range words {
		counts[w]++
	}
	return textStats{
		Chars:       utf8.RuneCountInString(text),
		Bytes:       len(text),
		Words:       len(words),
		UniqueWords: len(counts),
		Lines:       countLines(text),
		Sentences:   countSentences(text),
		TopWords:    topWords(counts, topWordCount),
	}
}

// splitWords returns the lower-cased words of text: whitespace-separated
// fields with surrounding punctuation removed ("don't" and "well-known" stay
// whole; a field of punctuation only is no word).
func splitWords(text string) []string {
	var words []string
	for _, field := range strings.Fields(text) {
		w := strings.TrimFunc(field, func(r rune) bool { return !isWordRune(r) })
		if w != "" {
			words = append(words, strings.ToLower(w))
		}
	}
	return words
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// countLines counts lines the way an editor shows them: "" has none, "a" and
// "a\n" have one, "a\nb" has two.
func countLines(text string) int {
	if text == "" {
		return 0
	}
	n := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

// countSentences counts runs of . ! ? that follow some words and are followed
// by white space or the end of the text (so "3.14" and "e.g" inside a word do
// not split), plus a trailing sentence without a terminator.
func countSentences(text string) int {
	runes := []rune(text)
	n, inSentence := 0, false
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		if isWordRune(r) {
			inSentence = true
			continue
		}
		if !isTerminator(r) || !inSentence {
			continue
		}
		for i+1 < len(runes) && (isTerminator(runes[i+1]) || isCloser(runes[i+1])) {
			i++
		}
		if i+1 == len(runes) || unicode.IsSpace(runes[i+1]) {
			n++
			inSentence = false
		}
	}
	if inSentence {
		n++
	}
	return n
}

func isTerminator(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '…' }

// isCloser reports a closing quote or bracket that may follow a terminator.
func isCloser(r rune) bool { return strings.ContainsRune(`"')]”’»`, r) }

// topWords returns the n most frequent words, ties broken alphabetically so
// the result is deterministic.
func topWords(counts map[string]int, n int) []wordCount {
	all := make([]wordCount, 0, len(counts))
	for w, c := range counts {
		all = append(all, wordCount{Word: w, Count: c})
	}
	slices.SortFunc(all, func(a, b wordCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return strings.Compare(a.Word, b.Word)
	})
	return all[:min(n, len(all))]
}
