package config

import (
	"strings"
	"unicode/utf8"
)

// closest returns the candidate most similar to key, or "" when none is close
// enough to be a likely typo. A case-insensitive match wins outright.
func closest(key string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		if strings.EqualFold(c, key) {
			return c
		}
		d := distance(strings.ToLower(key), c)
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	limit := max(2, utf8.RuneCountInString(key)/3)
	if bestDist >= 0 && bestDist <= limit {
		return best
	}
	return extension(key, candidates)
}

// extension returns the only candidate that starts with key or that key
// starts with ("client" for "client_id"), or "".
func extension(key string, candidates []string) string {
	key = strings.ToLower(key)
	found := ""
	for _, c := range candidates {
		if len(key) >= 3 && (strings.HasPrefix(c, key) || strings.HasPrefix(key, c)) {
			if found != "" {
				return ""
			}
			found = c
		}
	}
	return found
}

// distance is the Levenshtein edit distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
