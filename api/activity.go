package api

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/plughost/plughost/host/audit"
)

// Paging of GET /api/activity: the newest records, at most this many.
const (
	// DefaultActivityLimit is how many records an answer holds when the
	// request names no limit.
	DefaultActivityLimit = 100
	// MaxActivityLimit is the largest limit: every record kept in memory.
	MaxActivityLimit = audit.DefaultRecent
)

// activity answers GET /api/activity: the newest audit records, filtered
// by ?server= and ?client=, at most ?limit= of them.
func (a *handler) activity(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := audit.Filter{Server: q.Get("server"), Client: q.Get("client"), Limit: DefaultActivityLimit}
	if raw := q.Get("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > MaxActivityLimit {
			writeError(w, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest,
				Message: fmt.Sprintf("limit=%.20q: must be a whole number from 1 to %d (the newest records kept)", raw, MaxActivityLimit)})
			return
		}
		f.Limit = n
	}
	writeJSON(w, http.StatusOK, a.o.Host.Activity(f))
}
