package api

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// Paging of GET /api/servers and of the servers event.
const (
	// DefaultPageSize is how many servers an answer holds when the
	// request names no limit: every config of ordinary size fits whole.
	DefaultPageSize = 500
	// MaxPageSize is the largest limit a request may ask for (a page of
	// it is about 2 MB); a client follows next_cursor for more.
	MaxPageSize = 5000
)

// pageRequest is which servers a request asks for: after the cursor (a
// server name; "" from the first), at most limit of them.
type pageRequest struct {
	cursor string
	limit  int
}

// parsePage reads ?limit= and ?cursor=; a bad limit is a 400 naming the
// parameter and its range.
func parsePage(q url.Values) (pageRequest, error) {
	p := pageRequest{cursor: q.Get("cursor"), limit: DefaultPageSize}
	raw := q.Get("limit")
	if raw == "" {
		return p, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > MaxPageSize {
		return p, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest,
			Message: fmt.Sprintf("limit=%.20q: must be a whole number from 1 to %d (servers per page); follow next_cursor for more", raw, MaxPageSize)}
	}
	p.limit = n
	return p, nil
}

// query is the page's query string for a request of the next page.
func (p pageRequest) query() string {
	q := url.Values{"limit": {strconv.Itoa(p.limit)}}
	if p.cursor != "" {
		q.Set("cursor", p.cursor)
	}
	return q.Encode()
}
