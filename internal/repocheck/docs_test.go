package repocheck

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestDocLinksResolve: every relative link of every Markdown page points
// to a file or directory of the repository and, with a #fragment, to a
// heading of the page it names.
func TestDocLinksResolve(t *testing.T) {
	root := repoRoot(t)
	pages := markdownPages(t, root)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		anchors[path] = headingAnchors(string(b))
		return anchors[path]
	}
	checked := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for _, l := range links(string(b)) {
			target, frag, local := splitLink(l.target)
			if !local {
				continue
			}
			checked++
			path := page
			if target != "" {
				path = filepath.Join(filepath.Dir(page), filepath.FromSlash(target))
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s:%d: link %q: no such file or directory %s", rel, l.line, l.target, target)
				continue
			}
			if frag != "" && strings.HasSuffix(path, ".md") && !anchorsOf(path)[frag] {
				t.Errorf("%s:%d: link %q: %s has no heading with the anchor #%s", rel, l.line, l.target, filepath.Base(path), frag)
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d relative links checked in %d pages: the link extraction is broken", checked, len(pages))
	}
}

// narration are phrases of a diary, not of a reference: a page says what
// is true now, with the command and commit that measured it, and history
// stays in git. Code spans and fenced blocks are not searched.
var narration = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(this|last|previous|earlier|next|first|second|third) session\b`),
	regexp.MustCompile(`(?i)\b(first|second|third|fourth) attempt\b`),
	regexp.MustCompile(`(?i)\bissue \d+`),
	regexp.MustCompile(`(?i)\blast time\b`),
	regexp.MustCompile(`(?i)\bthis branch\b`),
	// "used to" as in "it used to take 30 s", not "it is used to measure".
	regexp.MustCompile(`(?i)\b(\w+) used to\b`),
}

// passive are the words before "used to" that make it "employed to".
var passive = map[string]bool{"is": true, "are": true, "was": true, "were": true, "be": true, "been": true, "being": true, "not": true, "get": true, "gets": true}

// TestDocsStateNotNarrate: no page reads as a diary.
func TestDocsStateNotNarrate(t *testing.T) {
	root := repoRoot(t)
	for _, page := range markdownPages(t, root) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for i, line := range prose(string(b)) {
			for _, m := range narrationIn(line) {
				t.Errorf("%s:%d: %q reads as narration; say what is true now (history is in git): %s", rel, i+1, m, strings.TrimSpace(line))
			}
		}
	}
}

// narrationIn returns the narrative phrases of a line of prose.
func narrationIn(line string) []string {
	var out []string
	for _, re := range narration {
		for _, m := range re.FindAllStringSubmatch(line, -1) {
			if strings.HasSuffix(strings.ToLower(m[0]), "used to") && passive[strings.ToLower(m[1])] {
				continue
			}
			out = append(out, m[0])
		}
	}
	return out
}

func TestNarrationIn(t *testing.T) {
	for line, want := range map[string]int{
		"It is used to measure, never to fit.":                                0,
		"a token not used to sign anything":                                   0,
		"where it used to take the whole 30 s":                                1,
		"Run of 2026-12-02 (second session), issue 4's goal":                  2,
		"what the session unlocked; starting again abandons the last attempt": 0,
		"the third attempt at it":                                             1,
	} {
		if got := narrationIn(line); len(got) != want {
			t.Errorf("%q: found %q, want %d", line, got, want)
		}
	}
}

// markdownPages returns the Markdown files of the repository, skipping
// hidden directories, node_modules and testdata.
func markdownPages(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 5 {
		t.Fatalf("found %d Markdown pages under %s", len(out), root)
	}
	return out
}

// link is a Markdown link's target and its line.
type link struct {
	target string
	line   int
}

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// links returns the inline links and images of a page, outside code.
func links(md string) []link {
	var out []link
	for i, line := range prose(md) {
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			out = append(out, link{target: m[1], line: i + 1})
		}
	}
	return out
}

// splitLink splits a link target into its path and fragment; local is
// false for links to other sites (a scheme) and mail addresses.
func splitLink(target string) (path, frag string, local bool) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "" || u.Host != "" {
		return "", "", false
	}
	path, _ = url.PathUnescape(u.Path)
	return path, u.Fragment, true
}

var codeSpanRE = regexp.MustCompile("`+[^`]*`+")

// prose returns the lines of md (one per line, so indexes are line
// numbers - 1) with fenced code blocks blanked and code spans removed.
func prose(md string) []string {
	lines := strings.Split(md, "\n")
	out := make([]string, len(lines))
	fenced := false
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out[i] = codeSpanRE.ReplaceAllString(line, "")
		}
	}
	return out
}

// headingAnchors returns the anchors GitHub gives the headings of md:
// lower case, every character but letters, digits, '_', '-' and spaces
// dropped, spaces turned into '-', and "-1", "-2" … after repeats.
func headingAnchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	lines := strings.Split(md, "\n")
	fenced := false
	for _, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			seen[a]++
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			seen[a] = 1
		}
		out[a] = true
	}
	return out
}
