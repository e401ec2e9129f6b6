package toolscan

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// checkText runs every rule that applies to t; tool is the tool's name.
func checkText(fs *findings, t text, tool string) {
	if loc := hiddenChar(t.s); loc != nil {
		fs.add(RuleHiddenText, t.field, excerpt(t.s, loc))
	}
	if t.kind == kindName {
		return
	}
	s := t.s
	if t.kind == kindParamName {
		s = splitName(s)
	}
	lower := strings.ToLower(s)
	if loc := findAny(instructionPatterns, s, lower); loc != nil {
		fs.add(RuleInstructions, t.field, excerpt(s, loc))
		schemaToo(fs, t, s, loc)
	}
	if loc := secretAccess(s, lower, tool, t.kind == kindParamName); loc != nil {
		fs.add(RuleSecrets, t.field, excerpt(s, loc))
		schemaToo(fs, t, s, loc)
	}
	if t.kind == kindParamName {
		return
	}
	if loc := exfiltration(s, lower); loc != nil {
		fs.add(RuleExfiltration, t.field, excerpt(s, loc))
		schemaToo(fs, t, s, loc)
	}
	if loc, what := hiddenProse(s, t.long); loc != nil {
		fs.add(RuleHiddenText, t.field, what+excerpt(s, loc))
	}
}

// schemaToo reports text in a schema that carries another rule's finding
// as schema smuggling as well: the model reads parameter text as
// instructions for filling the parameter (CyberArk's full-schema poisoning).
func schemaToo(fs *findings, t text, s string, loc []int) {
	if t.inSchema {
		fs.add(RuleSchemaTricks, t.field, excerpt(s, loc))
	}
}

// splitName turns a property name into words (content_from_reading_ssh_id_rsa
// → "content from reading ssh id rsa", sideNote → "side Note") so the prose
// patterns can read it.
func splitName(name string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range name {
		switch {
		case r == '-' || r == '_' || r == '.':
			b.WriteByte(' ')
		case r >= 'A' && r <= 'Z' && prev >= 'a' && prev <= 'z':
			b.WriteByte(' ')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// secretAccess finds a sensitive path (unless the tool's name says it
// works in that domain) or a request to pass the user's secrets along.
func secretAccess(s, lower, tool string, isName bool) []int {
	for _, p := range secretPaths {
		if loc := p.find(s, lower); loc != nil && (p.domain == nil || !p.domain().MatchString(tool)) {
			return loc
		}
	}
	if isName {
		return secretName.find(s, lower)
	}
	if loc := secretEnvValue.find(s, lower); loc != nil {
		return loc
	}
	return secretTransfer.find(s, lower)
}

// exfiltration finds data sent out: a URL after "send … to", a URL whose
// query holds a placeholder, a request-catcher host, or one of
// exfilPatterns. URLs on the reserved example domains are documentation.
func exfiltration(s, lower string) []int {
	if strings.Contains(lower, "://") {
		for _, loc := range urlRe().FindAllStringIndex(s, -1) {
			u := strings.ToLower(s[loc[0]:loc[1]])
			if exampleHost(u) {
				continue
			}
			// urlRe stops before < and {; the placeholder may start there.
			withNext := s[loc[0]:min(len(s), loc[1]+2)]
			if placeholderQuery().MatchString(withNext) || catcherHost(u) || exfilVerb().MatchString(sentenceBefore(s, loc[0])) {
				return loc
			}
		}
	}
	if loc := emailTo.find(s, lower); loc != nil {
		if at := strings.LastIndexByte(s[loc[0]:loc[1]], '@'); !exampleHost("mailto://" + s[loc[0]+at+1:loc[1]]) {
			return loc
		}
	}
	return findAny(exfilPatterns, s, lower)
}

// sentenceBefore is the text of s's sentence up to i (at most 160 bytes).
func sentenceBefore(s string, i int) string {
	start := max(0, i-160)
	w := s[start:i]
	for _, sep := range []string{". ", ".\n", "\n", "! ", "? "} {
		if j := strings.LastIndex(w, sep); j >= 0 {
			w = w[j+len(sep):]
		}
	}
	return w
}

func hostOf(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	if i := strings.IndexAny(u, "/?#"); i >= 0 {
		u = u[:i]
	}
	if i := strings.LastIndexByte(u, '@'); i >= 0 {
		u = u[i+1:]
	}
	if i := strings.LastIndexByte(u, ':'); i >= 0 {
		u = u[:i]
	}
	return u
}

// exampleHost reports whether u is on a host reserved for documentation
// (RFC 2606/6761): example.com, *.example, *.test, *.invalid, localhost.
func exampleHost(u string) bool {
	h := hostOf(u)
	for _, d := range []string{"example.com", "example.org", "example.net"} {
		if h == d || strings.HasSuffix(h, "."+d) {
			return true
		}
	}
	return h == "localhost" || h == "127.0.0.1" || strings.HasSuffix(h, ".example") ||
		strings.HasSuffix(h, ".test") || strings.HasSuffix(h, ".invalid") || strings.HasSuffix(h, ".localhost")
}

func catcherHost(u string) bool {
	h := hostOf(u)
	for _, c := range catcherHosts {
		if strings.Contains(h, c) {
			return true
		}
	}
	return false
}

// invisible reports characters that change or hide text without showing:
// zero-width and joiner characters, bidi controls, Unicode tag characters
// (ASCII smuggling), variation selectors beyond the emoji one, and C0/C1
// controls other than tab and line ends (an ANSI escape begins with one).
func invisible(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return false
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2064,
		r >= 0x2066 && r <= 0x2069, r == 0xfeff, r == 0x180e, r == 0x061c, r == 0x00ad, r == 0x115f,
		r == 0x1160, r == 0x3164, r == 0xffa0:
		return true
	case r >= 0xfe00 && r <= 0xfe0e, r >= 0xe0000 && r <= 0xe007f, r >= 0xe0100 && r <= 0xe01ef:
		return true
	case r == utf8.RuneError:
		return true
	}
	return false
}

// hiddenChar finds an invisible character, or a run of four letters from
// the Mathematical Alphanumeric Symbols block (𝘐𝘨𝘯𝘰𝘳𝘦): look-alike
// letters that read as words to a model and slip past keyword filters.
func hiddenChar(s string) []int {
	mathRun, mathStart := 0, 0
	for i, r := range s {
		if r >= 0x20 && r < 0x7f {
			mathRun = 0
			continue
		}
		if invisible(r) {
			_, size := utf8.DecodeRuneInString(s[i:]) // 1 for a byte that is not UTF-8
			return []int{i, i + size}
		}
		if r >= 0x1d400 && r <= 0x1d7ff {
			if mathRun == 0 {
				mathStart = i
			}
			if mathRun++; mathRun == 4 {
				return []int{mathStart, i + utf8.RuneLen(r)}
			}
		} else {
			mathRun = 0
		}
	}
	return nil
}

// padding is a run of 80 spaces or 15 blank lines: enough to push what
// follows out of a tool list's view (Trail of Bits' line jumping).
var padding = lazy(`[ \t\x{00a0}\x{3000}]{80,}|(\r?\n[ \t]*){15,}`)

// hiddenProse finds HTML comments, padding that pushes text out of view,
// encoded text, and text longer than long characters. what prefixes the
// excerpt when the excerpt alone would not say what is wrong.
func hiddenProse(s string, long int) (loc []int, what string) {
	if strings.Contains(s, "<!--") {
		if loc := htmlCommentOutsideCode(s); loc != nil {
			return loc, "HTML comment: "
		}
	}
	if strings.Contains(s, "      ") || strings.Contains(s, "\n\n\n") || strings.Contains(s, "\u00a0\u00a0") || strings.Contains(s, "\u3000") {
		if loc := padding().FindStringIndex(s); loc != nil {
			return loc, "padding: "
		}
	}
	if loc, kind := encodedText(s); loc != nil {
		return loc, kind + " that decodes to text: "
	}
	if long > 0 && len(s) > long {
		if n := utf8.RuneCountInString(s); n > long {
			return []int{0, len(s)}, "very long (" + strconv.Itoa(n) + " characters): "
		}
	}
	return nil, ""
}

// htmlCommentOutsideCode finds "<!--" outside fenced code blocks: a
// rendered description hides a comment, but shows one inside a code block
// as what it is, an example of markup.
func htmlCommentOutsideCode(s string) []int {
	inCode := false
	for off, line := range lines(s) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		if i := strings.Index(line, "<!--"); i >= 0 && !inCode {
			return []int{off + i, off + i + 4}
		}
	}
	return nil
}

// lines yields each line of s with its offset.
func lines(s string) func(func(int, string) bool) {
	return func(yield func(int, string) bool) {
		for off := 0; off <= len(s); {
			end := strings.IndexByte(s[off:], '\n')
			if end < 0 {
				end = len(s) - off
			}
			if !yield(off, s[off:off+end]) {
				return
			}
			off += end + 1
		}
	}
}

// encodedText finds a base64 or hex run of at least 32 characters that
// decodes to readable text: a hash, key or ID decodes to random bytes, a
// hidden message does not. Runs are found by hand: a regular expression
// over every text costs more than the rest of the scan.
func encodedText(s string) ([]int, string) {
	for i := 0; i < len(s); {
		if !base64Char(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && base64Char(s[j]) {
			j++
		}
		if j-i >= 32 {
			run := s[i:j]
			end := j
			for end < len(s) && end < j+2 && s[end] == '=' {
				end++
			}
			if isHex(run) {
				if decodesToText(decodeHex(run)) {
					return []int{i, j}, "hex"
				}
			} else if decodesToText(decodeBase64(run)) {
				return []int{i, end}, "base64"
			}
		}
		i = j
	}
	return nil, ""
}

func base64Char(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-'
}

func isHex(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
