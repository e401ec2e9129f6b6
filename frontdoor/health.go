package frontdoor

import (
	"encoding/json"
	"net/http"

	"github.com/plughost/plughost/host"
)

// readiness serves /readyz: 200 when every enabled server is up and the
// session store answers, else 503 — and 503 with "reason": "draining"
// while Serve drains, whatever the servers' state. With the token (or
// without auth) the body is the host's Readiness (host.CheckReadiness); a
// request without any Authorization header — a Kubernetes or load-balancer
// probe, which cannot carry a secret — gets the status and {"ready": bool}
// (and the reason) only, since server names and errors are for the token's
// holders. A wrong token is 401.
func (d *Door) readiness() http.Handler {
	full := d.guard(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r := d.h.CheckReadiness(req.Context())
		if d.draining.Load() {
			writeReadiness(w, false, drainingReadiness{Readiness: &r, Reason: reasonDraining})
			return
		}
		writeReadiness(w, r.Ready, r)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if d.opts.Token == "" || req.Header.Get("Authorization") != "" {
			full.ServeHTTP(w, req)
			return
		}
		if refuseQueryToken(w, req) {
			return
		}
		if d.draining.Load() {
			writeReadiness(w, false, drainingReadiness{Reason: reasonDraining})
			return
		}
		r := d.h.CheckReadiness(req.Context())
		writeReadiness(w, r.Ready, struct {
			Ready bool `json:"ready"`
		}{r.Ready})
	})
}

// reasonDraining is /readyz's reason while the door drains.
const reasonDraining = "draining"

// drainingReadiness is /readyz's body while the door drains: not ready,
// and why; with the token, the servers and the store as well.
type drainingReadiness struct {
	*host.Readiness
	Ready  bool   `json:"ready"`
	Reason string `json:"reason"`
}

func writeReadiness(w http.ResponseWriter, ready bool, body any) {
	w.Header().Set("Content-Type", "application/json")
	if !ready {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(body) // the client went away: nothing to do
}

// healthz answers 200 while the process serves.
func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
}
