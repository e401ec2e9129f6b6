// Package linediff compares two texts line by line, for showing a person
// what changed between two versions of something short (a tool
// definition): the longest common subsequence of lines is kept, the rest
// is marked removed or added.
package linediff

import "strings"

// Op says what happened to a line.
type Op byte

// The operations of a Line.
const (
	// Same is a line in both texts.
	Same Op = ' '
	// Removed is a line only in the old text.
	Removed Op = '-'
	// Added is a line only in the new text.
	Added Op = '+'
)

// Line is one line of a diff.
type Line struct {
	Op   Op
	Text string
}

// MaxLines bounds the lines compared on each side: beyond it, the texts
// are shown as wholly removed and added (the comparison costs
// len(old)×len(new)).
const MaxLines = 4000

// Lines returns the diff of old and new, split at "\n", in order.
func Lines(old, new string) []Line {
	a, b := split(old), split(new)
	if len(a) > MaxLines || len(b) > MaxLines {
		out := make([]Line, 0, len(a)+len(b))
		for _, l := range a {
			out = append(out, Line{Removed, l})
		}
		for _, l := range b {
			out = append(out, Line{Added, l})
		}
		return out
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []Line
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out = append(out, Line{Same, a[i]})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, Line{Removed, a[i]})
			i++
		default:
			out = append(out, Line{Added, b[j]})
			j++
		}
	}
	return out
}

// Changed reports whether a diff has any line removed or added.
func Changed(lines []Line) bool {
	for _, l := range lines {
		if l.Op != Same {
			return true
		}
	}
	return false
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
