package artifacts

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Limits of search_files.
const (
	// DefaultMaxMatches is the number of matches search_files returns by default.
	DefaultMaxMatches = 50
	// MaxMatches is the most matches one search_files call returns.
	MaxMatches = 500
	// MaxSearchPattern is the longest pattern, in characters.
	MaxSearchPattern = 500
	// searchLineBytes is how much of one line is searched.
	searchLineBytes = 1 << 20
	// matchContext is how much of a matching line is shown.
	matchContext = 300
	// checkEvery is how many bytes a search reads between checks of its
	// context: matching costs up to a few seconds per megabyte, so the
	// search notices its deadline within a fraction of a second.
	checkEvery = 64 << 10
)

// SearchRequest is one search_files call.
type SearchRequest struct {
	// Pattern is an RE2 regular expression matched against each line.
	Pattern string
	// Path narrows the search to a file or directory in the workspace;
	// "" means every artifact (<workspace>/.artifacts).
	Path string
	// MaxResults caps the matches returned (0 means DefaultMaxMatches).
	MaxResults int
	// Budget caps the characters of the whole answer (0: no cap).
	Budget int
}

// SearchFiles finds the lines matching an RE2 pattern in workspace files and
// returns them as "path:line: text", in path and line order, with a summary
// of what was not shown. Only the first megabyte of a line is searched, and
// files being written are skipped. A pattern too costly to match is refused.
// A search that reaches the Store's time or byte limit stops and returns what
// it found with a note saying where and why it stopped; one whose ctx ends
// fails with ctx's error.
func (s *Store) SearchFiles(ctx context.Context, req SearchRequest) (string, error) {
	re, err := compilePattern(req.Pattern)
	if err != nil {
		return "", err
	}
	if req.MaxResults < 0 {
		return "", fmt.Errorf("max_results must not be negative, got %d", req.MaxResults)
	}
	maxResults := req.MaxResults
	if maxResults == 0 {
		maxResults = DefaultMaxMatches
	}
	maxResults = min(maxResults, MaxMatches)
	dir := req.Path
	if dir == "" {
		dir = s.defaultSearch()
	}
	files, err := s.listFiles(dir)
	if err != nil {
		return "", err
	}
	limited, cancel := context.WithTimeout(ctx, s.search.Timeout)
	defer cancel()
	r := searchRun{re: re, max: maxResults, budget: req.Budget, maxBytes: s.search.MaxBytes}
	for _, rel := range files {
		err := s.searchFile(limited, rel, &r)
		if (err == nil && r.stop == "") || errors.Is(err, fs.ErrNotExist) {
			continue // a file removed since it was listed has nothing to find
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("search stopped: %w", ctx.Err())
		}
		if limited.Err() != nil {
			r.stop = fmt.Sprintf("the time limit of %s was reached", s.search.Timeout)
		} else if err != nil {
			return "", err
		}
		break
	}
	return r.text(req.Pattern, len(files)), nil
}

// compilePattern checks and compiles a search pattern.
func compilePattern(pattern string) (*regexp.Regexp, error) {
	if n := utf8.RuneCountInString(pattern); n == 0 || n > MaxSearchPattern {
		return nil, fmt.Errorf("pattern must have 1 to %d characters, got %d", MaxSearchPattern, n)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression (RE2 syntax): %w", err)
	}
	if err := checkComplexity(pattern); err != nil {
		return nil, err
	}
	return re, nil
}

// listFiles returns the regular files at rel (a file or a directory tree),
// workspace-relative, in lexical order. Symbolic links are not followed.
func (s *Store) listFiles(p string) ([]string, error) {
	rel, err := s.relPath(p)
	if err != nil {
		return nil, err
	}
	root, err := openRoot(s.workspace)
	if errors.Is(err, fs.ErrNotExist) && rel == s.defaultSearch() {
		return nil, nil // nothing saved yet
	}
	if err != nil {
		return nil, err
	}
	defer root.Close()
	fi, err := root.Stat(rel)
	if err != nil && s.client != "" {
		return nil, notFound(p) // missing, or a link leading out: alike
	}
	if err == nil && !fi.IsDir() {
		if err := regularFile(p, fi); err != nil {
			return nil, err
		}
	}
	var files []string
	err = fs.WalkDir(root.FS(), filepath.ToSlash(rel), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && !strings.HasPrefix(d.Name(), tempPrefix) {
			files = append(files, filepath.FromSlash(path))
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) && rel == s.defaultSearch() {
		return nil, nil // nothing saved yet
	}
	if err != nil && s.client != "" {
		return nil, notFound(p)
	}
	if err != nil {
		return nil, fmt.Errorf("list %s in the workspace: %w", rel, err)
	}
	return files, nil
}

// defaultSearch is what search_files searches without a path: every
// artifact (.artifacts, every client's included), or all of a client's.
func (s *Store) defaultSearch() string {
	if s.client != "" {
		return "."
	}
	return artifactsDir
}

type searchRun struct {
	re       *regexp.Regexp
	max      int
	budget   int
	maxBytes int64
	out      strings.Builder
	chars    int
	shown    int
	matches  int
	inFiles  int
	searched int   // files searched, whole or in part
	scanned  int64 // bytes read
	cut      bool
	stop     string // why the search stopped early ("" if it did not)
}

// searchFile searches one file, stopping at a line boundary once ctx ends
// (returning its error) or the byte limit is reached (setting r.stop).
func (s *Store) searchFile(ctx context.Context, rel string, r *searchRun) error {
	f, _, release, err := s.open(rel)
	if err != nil {
		return err
	}
	defer release()
	defer f.Close()
	path, found := s.absPath(rel), false
	r.searched++
	unchecked := int64(checkEvery) // check at the first line
	_, err = scanLines(ctx, f, searchLineBytes, func(l line) bool {
		if unchecked >= checkEvery {
			if ctx.Err() != nil {
				return false
			}
			unchecked = 0
		}
		n := int64(len(l.text)+l.cut) + 1
		if r.scanned+n > r.maxBytes {
			r.stop = fmt.Sprintf("the limit of %s read was reached", sizeText(r.maxBytes))
			return false
		}
		r.scanned += n
		unchecked += n
		if loc := r.re.FindIndex(l.text); loc != nil {
			found = true
			r.match(path, l, loc)
		}
		return true
	})
	if found {
		r.inFiles++
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("search %s: %w", rel, err)
	}
	return nil
}

// match records a matching line, showing it while the caps allow.
func (r *searchRun) match(path string, l line, loc []int) {
	r.matches++
	if r.shown >= r.max || r.cut {
		return
	}
	entry := fmt.Sprintf("%s:%d: %s\n", path, l.num, excerpt(l.text, loc))
	n := utf8.RuneCountInString(entry)
	if r.budget > 0 && r.chars+n > r.budget {
		r.cut = true
		return
	}
	r.out.WriteString(entry)
	r.chars += n
	r.shown++
}

// excerpt returns at most matchContext bytes of a line around the match,
// marking what was left out and never splitting a character.
func excerpt(text []byte, loc []int) string {
	if len(text) <= matchContext {
		return validPrefix(text)
	}
	start := max(0, loc[0]-matchContext/3)
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	end := min(len(text), start+matchContext)
	out := validPrefix(text[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(text) {
		out += "…"
	}
	return out
}

func (r *searchRun) text(pattern string, files int) string {
	var b strings.Builder
	switch {
	case r.matches == 0 && r.stop != "":
		fmt.Fprintf(&b, "No line matches %q in the part searched.\n", pattern)
	case r.matches == 0:
		fmt.Fprintf(&b, "No line matches %q in %d files.\n", pattern, files)
	default:
		fmt.Fprintf(&b, "%d matching lines in %d of %d files (showing %d):\n", r.matches, r.inFiles, files, r.shown)
		b.WriteString(r.out.String())
		if r.shown < r.matches {
			fmt.Fprintf(&b, "[%d more matching lines not shown: narrow the pattern or the path, or page a file with read_file]\n", r.matches-r.shown)
		}
	}
	if r.stop != "" {
		fmt.Fprintf(&b, "[search stopped early: %s after reading %s; %d of %d files were searched (the last one perhaps only in part), so there may be more matches. "+
			"Narrow the search: pass one file or directory as path, or use a more specific pattern]\n",
			r.stop, sizeText(r.scanned), r.searched, files)
	}
	return b.String()
}

// sizeText renders a byte count for people: "512 B", "3.2 MiB".
func sizeText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
