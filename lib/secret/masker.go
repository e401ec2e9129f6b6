package secret

import (
	"slices"
	"strings"
	"sync"
)

// Shortest values a Masker looks for in free text. A secret-named value (see
// IsSecretName; header values, URL passwords) is masked from MinNamedLen
// characters, any other configured value (e.g. an env variable called
// REGION) from MinValueLen: shorter ones are ordinary words and numbers
// ("info", "true", "3000") that would mask half of every stderr tail. They
// are still masked wherever they are shown as config (String, URL).
const (
	MinNamedLen = 3
	MinValueLen = 8
)

// Masker masks, in any text, every secret value it was given and the secret
// parts of every URL (MaskURLs). Build one from the whole config (the host
// does: config.NewMasker) and pass everything that may quote a secret
// through it before it is shown or logged: status and last errors, stderr
// tails, error text, log lines (Logger). It is safe for concurrent use; Add
// may be called at any time (e.g. for a refreshed token). A nil *Masker
// masks URLs only.
type Masker struct {
	mu       sync.RWMutex
	values   map[string]bool
	replacer *strings.Replacer // nil while there are no values, or until Mask needs it after a change
	stale    bool              // values changed since replacer was built
}

// NewMasker returns a Masker that knows no values yet.
func NewMasker() *Masker { return &Masker{values: map[string]bool{}} }

// Add registers a secret value configured under name (an environment
// variable, header or parameter name; "" for none). Values shorter than
// the length rule above are ignored. A value such as "Bearer abc123" is
// registered whole and without its scheme word, and a value that is a URL
// also registers the URL's own secrets.
func (m *Masker) Add(name, value string) {
	if m == nil {
		return
	}
	m.addValue(IsSecretName(name), value)
}

// AddHeader registers an HTTP header value: header values are secrets
// whatever the header's name, so the shorter length applies.
func (m *Masker) AddHeader(value string) {
	if m == nil {
		return
	}
	m.addValue(true, value)
}

func (m *Masker) addValue(named bool, value string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.add(named, value) {
		m.rebuild()
	}
}

// AddURL registers the secrets a URL carries: its password (or its user name
// when it has no password) and the values of its secret-named query and
// fragment parameters, as written and decoded.
func (m *Masker) AddURL(raw string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.addURL(raw) {
		m.rebuild()
	}
}

func (m *Masker) add(named bool, value string) bool {
	changed := m.addOne(named, value)
	if scheme, rest, ok := strings.Cut(strings.TrimSpace(value), " "); ok && isWord(scheme) {
		changed = m.addOne(named, strings.TrimSpace(rest)) || changed
	}
	if strings.Contains(value, "://") {
		changed = m.addURL(value) || changed
	}
	return changed
}

func (m *Masker) addURL(raw string) bool {
	changed := false
	for _, nv := range urlSecrets(raw) {
		changed = m.addOne(IsSecretName(nv[0]), nv[1]) || changed
	}
	return changed
}

// addOne registers value if it is long enough; it reports a change.
func (m *Masker) addOne(named bool, value string) bool {
	minLen := MinValueLen
	if named {
		minLen = MinNamedLen
	}
	if len(value) < minLen || value == Masked || m.values[value] {
		return false
	}
	m.values[value] = true
	return true
}

// rebuild marks the replacer out of date: the next Mask builds it, once
// for any number of values added meanwhile (a config of thousands of
// servers adds thousands of values; a replacer per value would cost time
// and memory quadratic in their number).
func (m *Masker) rebuild() { m.stale = true }

// current returns the replacer of the registered values, building it when
// they changed since (nil when there are none).
func (m *Masker) current() *strings.Replacer {
	m.mu.RLock()
	r, stale := m.replacer, m.stale
	m.mu.RUnlock()
	if !stale {
		return r
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stale {
		m.build()
		m.stale = false
	}
	return m.replacer
}

// build makes the replacer; longer values first, so that a value that
// contains another is masked whole. Callers hold mu.
func (m *Masker) build() {
	vals := make([]string, 0, len(m.values))
	for v := range m.values {
		vals = append(vals, v)
	}
	slices.SortFunc(vals, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(vals))
	for _, v := range vals {
		pairs = append(pairs, v, Masked)
	}
	m.replacer = strings.NewReplacer(pairs...)
}

func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) {
			return false
		}
	}
	return s != ""
}

// Mask returns text with every registered value replaced by Masked and the
// secret parts of every URL in it masked.
func (m *Masker) Mask(text string) string {
	if m != nil {
		if r := m.current(); r != nil {
			text = r.Replace(text)
		}
	}
	return MaskURLs(text)
}

// MaskAll masks each string of list, returning a new slice (nil for nil).
func (m *Masker) MaskAll(list []string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = m.Mask(s)
	}
	return out
}

// Error returns err with its text masked. The result still unwraps to err,
// so errors.Is and errors.As see through it; err itself is returned when
// its text holds nothing to mask, and nil for nil.
func (m *Masker) Error(err error) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	masked := m.Mask(text)
	if masked == text {
		return err
	}
	return &maskedError{text: masked, err: err}
}

// maskedError is an error whose text has been masked.
type maskedError struct {
	text string
	err  error
}

// Error returns the masked text.
func (e *maskedError) Error() string { return e.text }

// Unwrap returns the original error.
func (e *maskedError) Unwrap() error { return e.err }
