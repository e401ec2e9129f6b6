package artifacts

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of read_file.
const (
	// DefaultReadLimit is the number of lines read_file returns by default.
	DefaultReadLimit = 200
	// MaxReadLimit is the most lines one read_file call returns.
	MaxReadLimit = 2000
	// maxLineBytes is the longest part of one line read_file shows.
	maxLineBytes = 2000
)

// ReadRequest is one read_file call.
type ReadRequest struct {
	// Path is the file, absolute inside the workspace or relative to it.
	Path string
	// Offset is the first line to return, counted from 1 (0 means 1).
	Offset int
	// Limit is the number of lines to return (0 means DefaultReadLimit).
	Limit int
	// Budget caps the characters of the whole answer (0: no cap).
	Budget int
}

// ReadFile returns a page of a workspace file: a header naming the file and
// the line range, the lines with their numbers, and a footer saying what
// remains and which offset continues. Lines longer than 2000 bytes are cut
// (the cut is stated); the page stops early, at a line boundary, when the
// answer would exceed the budget.
func (s *Store) ReadFile(ctx context.Context, req ReadRequest) (string, error) {
	if req.Offset < 0 || req.Limit < 0 {
		return "", fmt.Errorf("offset and limit must not be negative (got offset=%d, limit=%d); lines are counted from 1", req.Offset, req.Limit)
	}
	offset, limit := max(req.Offset, 1), req.Limit
	if limit == 0 {
		limit = DefaultReadLimit
	}
	limit = min(limit, MaxReadLimit)
	f, rel, release, err := s.open(req.Path)
	if err != nil {
		return "", err
	}
	defer release()
	defer f.Close()

	var body strings.Builder
	last, chars, budgetHit := 0, 0, false
	total, err := scanLines(ctx, f, maxLineBytes, func(l line) bool {
		if l.num < offset || l.num >= offset+limit || budgetHit {
			return true // keep counting lines to report what remains
		}
		entry := formatLine(l)
		n := utf8.RuneCountInString(entry)
		if req.Budget > 0 && last > 0 && chars+n > req.Budget {
			budgetHit = true
			return true
		}
		body.WriteString(entry)
		chars += n
		last = l.num
		return true
	})
	if err != nil {
		return "", fmt.Errorf("read %s: %w", rel, err)
	}
	return pageText(s.absPath(rel), offset, last, total, budgetHit, body.String()), nil
}

func formatLine(l line) string {
	text := validPrefix(l.text)
	if l.cut > 0 || len(text) < len(l.text) {
		return fmt.Sprintf("%6d\t%s… [line cut: %d more bytes]\n", l.num, text, l.cut+len(l.text)-len(text))
	}
	return fmt.Sprintf("%6d\t%s\n", l.num, text)
}

// validPrefix drops a multi-byte character cut at the end of b.
func validPrefix(b []byte) string {
	i := len(b) - 1
	for i > 0 && i > len(b)-utf8.UTFMax && !utf8.RuneStart(b[i]) {
		i--
	}
	if i >= 0 && !utf8.FullRune(b[i:]) {
		b = b[:i]
	}
	return string(b)
}

func pageText(path string, offset, last, total int, budgetHit bool, body string) string {
	var b strings.Builder
	switch {
	case total == 0:
		fmt.Fprintf(&b, "%s is empty.\n", path)
		return b.String()
	case last == 0:
		fmt.Fprintf(&b, "%s has %d lines; offset %d is past the end. Use an offset from 1 to %d.\n", path, total, offset, total)
		return b.String()
	}
	fmt.Fprintf(&b, "%s: lines %d-%d of %d\n", path, offset, last, total)
	b.WriteString(body)
	switch {
	case last < total && budgetHit:
		fmt.Fprintf(&b, "[page cut to stay within the output budget; %d more lines: call read_file with offset=%d]\n", total-last, last+1)
	case last < total:
		fmt.Fprintf(&b, "[%d more lines: call read_file with offset=%d]\n", total-last, last+1)
	default:
		b.WriteString("[end of file]\n")
	}
	return b.String()
}
