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
// files being written are skipped.
func (s *Store) SearchFiles(ctx context.Context, req SearchRequest) (string, error) {
	if n := utf8.RuneCountInString(req.Pattern); n == 0 || n > MaxSearchPattern {
		return "", fmt.Errorf("pattern must have 1 to %d characters, got %d", MaxSearchPattern, n)
	}
	re, err := regexp.Compile(req.Pattern)
	if err != nil {
		return "", fmt.Errorf("invalid regular expression (RE2 syntax): %w", err)
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
		dir = artifactsDir
	}
	files, err := s.listFiles(dir)
	if err != nil {
		return "", err
	}
	r := searchRun{re: re, max: maxResults, budget: req.Budget}
	for _, rel := range files {
		if err := s.searchFile(ctx, rel, &r); err != nil {
			return "", err
		}
	}
	return r.text(req.Pattern, len(files)), nil
}

// listFiles returns the regular files at rel (a file or a directory tree),
// workspace-relative, in lexical order. Symbolic links are not followed.
func (s *Store) listFiles(p string) ([]string, error) {
	rel, err := s.relPath(p)
	if err != nil {
		return nil, err
	}
	root, err := openRoot(s.workspace)
	if errors.Is(err, fs.ErrNotExist) && rel == artifactsDir {
		return nil, nil // nothing saved yet
	}
	if err != nil {
		return nil, err
	}
	defer root.Close()
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
	if errors.Is(err, fs.ErrNotExist) && rel == artifactsDir {
		return nil, nil // nothing saved yet
	}
	if err != nil {
		return nil, fmt.Errorf("list %s in the workspace: %w", rel, err)
	}
	return files, nil
}

type searchRun struct {
	re      *regexp.Regexp
	max     int
	budget  int
	out     strings.Builder
	chars   int
	shown   int
	matches int
	inFiles int
	cut     bool
}

func (s *Store) searchFile(ctx context.Context, rel string, r *searchRun) error {
	f, _, release, err := s.open(rel)
	if err != nil {
		return err
	}
	defer release()
	defer f.Close()
	path, found := s.absPath(rel), false
	_, err = scanLines(ctx, f, searchLineBytes, func(l line) bool {
		loc := r.re.FindIndex(l.text)
		if loc == nil {
			return true
		}
		r.matches++
		found = true
		if r.shown >= r.max || r.cut {
			return true
		}
		entry := fmt.Sprintf("%s:%d: %s\n", path, l.num, excerpt(l.text, loc))
		n := utf8.RuneCountInString(entry)
		if r.budget > 0 && r.chars+n > r.budget {
			r.cut = true
			return true
		}
		r.out.WriteString(entry)
		r.chars += n
		r.shown++
		return true
	})
	if found {
		r.inFiles++
	}
	if err != nil {
		return fmt.Errorf("search %s: %w", rel, err)
	}
	return nil
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
	if r.matches == 0 {
		fmt.Fprintf(&b, "No line matches %q in %d files.\n", pattern, files)
		return b.String()
	}
	fmt.Fprintf(&b, "%d matching lines in %d of %d files (showing %d):\n", r.matches, r.inFiles, files, r.shown)
	b.WriteString(r.out.String())
	if r.shown < r.matches {
		fmt.Fprintf(&b, "[%d more matching lines not shown: narrow the pattern or the path, or page a file with read_file]\n", r.matches-r.shown)
	}
	return b.String()
}
