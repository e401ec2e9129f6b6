package frontdoor

import (
	"encoding/json"
	"net/http"
)

// readyz answers 200 when every enabled server is up, else 503, with the
// host's Readiness (host.Readiness) as JSON either way.
func (d *Door) readyz(w http.ResponseWriter, _ *http.Request) {
	r := d.h.Readiness()
	w.Header().Set("Content-Type", "application/json")
	if !r.Ready {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(r) // the client went away: nothing to do
}

// healthz answers 200 while the process serves.
func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
}
