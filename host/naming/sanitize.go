package naming

import "strings"

// emptyComponent replaces a component that has nothing left after sanitizing.
const emptyComponent = "unnamed"

// Sanitize cleans one name component and reports whether it changed it. The result
// matches ^[A-Za-z0-9_-]+$, has no "__" and neither starts nor ends with "_". Each
// disallowed character (a whole rune, or one byte of invalid UTF-8) becomes "_".
func Sanitize(component string) (clean string, changed bool) {
	var b strings.Builder
	b.Grow(len(component))
	lastUnderscore := true // suppresses a leading "_"
	for _, r := range component {
		if !allowed(r) {
			r = '_'
		}
		if r == '_' {
			if lastUnderscore {
				continue
			}
			lastUnderscore = true
		} else {
			lastUnderscore = false
		}
		b.WriteRune(r)
	}
	clean = strings.TrimSuffix(b.String(), "_")
	if clean == "" {
		clean = emptyComponent
	}
	return clean, clean != component
}

func allowed(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r == '_' || r == '-'
}
