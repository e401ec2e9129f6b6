package shaping

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/plughost/plughost/host/callresult"
)

// headPercent is the share of the budget kept from the start of a text; the
// rest of the budget is kept from its end.
const headPercent = 40

// Bound limits the text of a result (error results too) to budget
// characters — characters, not bytes: if it is longer, it keeps the first
// 40% of the budget (rounded down) and the last 60%, never splitting a
// UTF-8 character, around a line
//
//	[MCP RESULT TRUNCATED - N chars omitted out of T total]
//
// When the payload was saved, the text ends with a line [file:<path>]; when
// saving failed, with a line saying so and why. Several text items become
// one (joined with "\n"); other content is kept in place. A budget of 0 or
// less disables the link.
func Bound(budget int) Middleware {
	if budget <= 0 {
		return func(next Handler) Handler { return next }
	}
	return onResult(func(ctx context.Context, call Call, res callresult.Result) callresult.Result {
		rec := call.record()
		text, _ := textOf(res)
		total := utf8.RuneCountInString(text)
		if total <= budget && rec.path == "" && len(rec.saveErrs) == 0 {
			return res
		}
		if total > budget {
			text, rec.omitted = BoundText(text, total, budget)
			rec.truncated = true
		}
		return withText(res, text+reference(rec))
	})
}

// BoundText returns the head (40% of budget) and tail (the rest) of text,
// which has total characters, around the truncation notice, and the number
// of characters omitted. A text within budget is returned as it is.
func BoundText(text string, total, budget int) (string, int) {
	if total <= budget {
		return text, 0
	}
	headChars := budget * headPercent / 100
	tailChars := budget - headChars
	head := 0
	for range headChars {
		_, size := utf8.DecodeRuneInString(text[head:])
		head += size
	}
	tail := len(text)
	for range tailChars {
		_, size := utf8.DecodeLastRuneInString(text[:tail])
		tail -= size
	}
	omitted := total - headChars - tailChars
	var b strings.Builder
	b.Grow(head + (len(text) - tail) + 80)
	b.WriteString(text[:head])
	fmt.Fprintf(&b, "\n[MCP RESULT TRUNCATED - %d chars omitted out of %d total]\n", omitted, total)
	b.WriteString(text[tail:])
	return b.String(), omitted
}

// reference is the line that tells the model where the full payload is.
func reference(rec *record) string {
	switch {
	case rec.path != "":
		return "\n[file:" + rec.path + "]"
	case len(rec.saveErrs) > 0:
		why := make([]string, len(rec.saveErrs))
		for i, err := range rec.saveErrs {
			why[i] = err.Error()
		}
		return "\n[the full payload could not be saved: " + strings.Join(why, "; ") + "]"
	}
	return ""
}
