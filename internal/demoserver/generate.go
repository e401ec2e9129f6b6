package demoserver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// maxGeneratedChars is the largest text generate_text produces (50 MB of
// ASCII), enough to exercise result bounding without exhausting memory.
const maxGeneratedChars = 50_000_000

var loremWords = strings.Fields(`lorem ipsum dolor sit amet consectetur adipiscing elit sed do
	eiusmod tempor incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud
	exercitation ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure in
	reprehenderit voluptate velit esse cillum eu fugiat nulla pariatur excepteur sint occaecat
	cupidatat non proident sunt culpa qui officia deserunt mollit anim id est laborum`)

type generateTextArgs struct {
	Chars int    `json:"chars"`
	Seed  *int64 `json:"seed"`
}

func generateTextTool() server.ServerTool {
	tool := newTool("generate_text",
		"Generates lorem-ipsum style placeholder text (sentences and paragraphs, ASCII only) of exactly `chars` "+
			"characters. The same chars and seed always give the same text. Meant for testing how clients "+
			"handle large results; the text is cut at exactly `chars`, possibly mid-word.",
		hints("Generate text", true),
		mcp.WithInteger("chars",
			mcp.Required(),
			mcp.Min(1),
			mcp.Max(maxGeneratedChars),
			mcp.Description(fmt.Sprintf("Exact number of characters to return (1 to %d).", maxGeneratedChars)),
		),
		mcp.WithInteger("seed",
			mcp.DefaultNumber(0),
			mcp.Description("Seed for the word sequence; different seeds give different texts. Default 0."),
		),
	)
	return server.ServerTool{Tool: tool, Handler: mcp.NewTypedToolHandler(generateTextHandler)}
}

func generateTextHandler(_ context.Context, _ mcp.CallToolRequest, args generateTextArgs) (*mcp.CallToolResult, error) {
	if args.Chars < 1 || args.Chars > maxGeneratedChars {
		return mcp.NewToolResultError(fmt.Sprintf("chars must be between 1 and %d, got %d", maxGeneratedChars, args.Chars)), nil
	}
	var seed int64
	if args.Seed != nil {
		seed = *args.Seed
	}
	return mcp.NewToolResultText(generateText(args.Chars, seed)), nil
}

// generateText returns exactly n characters of deterministic filler text:
// capitalised sentences of 6–14 words, occasionally with a comma, grouped in
// paragraphs of 3–7 sentences separated by a blank line.
func generateText(n int, seed int64) string {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	var b strings.Builder
	b.Grow(n + 128) // one sentence of slack; avoids a final copy-on-grow
	for b.Len() < n {
		for s, sentences := 0, 3+rng.IntN(5); s < sentences && b.Len() < n; s++ {
			if s > 0 {
				b.WriteByte(' ')
			}
			writeSentence(&b, rng)
		}
		b.WriteString("\n\n")
	}
	return b.String()[:n] // ASCII only, so bytes are characters
}

func writeSentence(b *strings.Builder, rng *rand.Rand) {
	words := 6 + rng.IntN(9)
	for i := range words {
		w := loremWords[rng.IntN(len(loremWords))]
		if i == 0 {
			b.WriteString(strings.ToUpper(w[:1]))
			b.WriteString(w[1:])
		} else {
			b.WriteByte(' ')
			b.WriteString(w)
		}
		if i > 0 && i < words-2 && rng.IntN(10) == 0 {
			b.WriteByte(',')
		}
	}
	b.WriteByte('.')
}
