package frontdoor

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
)

// Readiness is the body of /readyz.
type Readiness struct {
	// Ready is true when every enabled server with a valid config is
	// connected and the session store (when it lives outside the process)
	// answers.
	Ready bool `json:"ready"`
	// Store is the session store kept outside the process (Redis); absent
	// for the in-memory store, which is always there.
	Store *StoreReadiness `json:"store,omitempty"`
	// Servers lists every configured server.
	Servers []ServerReadiness `json:"servers"`
}

// StoreReadiness is the session store in /readyz.
type StoreReadiness struct {
	// Name names the store, its password masked ("redis at redis://…").
	Name string `json:"name"`
	// Up is true when it answered now.
	Up bool `json:"up"`
	// Error says why it did not.
	Error string `json:"error,omitempty"`
}

// storeCheckTimeout bounds the store check of one /readyz.
const storeCheckTimeout = 2 * time.Second

// checkStore adds the session store's health to r, when the store lives
// outside the process: a replica whose store does not answer cannot serve
// any session, so it is not ready.
func checkStore(ctx context.Context, h *host.Host, r *Readiness) {
	remote, ok := h.Sessions().(host.RemoteSessionStore)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, storeCheckTimeout)
	defer cancel()
	r.Store = &StoreReadiness{Name: remote.String(), Up: true}
	if err := remote.Ping(ctx); err != nil {
		r.Ready, r.Store.Up, r.Store.Error = false, false, h.Masker().Mask(err.Error())
	}
}

// ServerReadiness is one server in /readyz.
type ServerReadiness struct {
	// Name is the server's name in the config.
	Name string `json:"name"`
	// State is its lifecycle state (connected, connecting, error, …).
	State supervisor.State `json:"state"`
	// Up is true when it is connected.
	Up bool `json:"up"`
	// Tools is how many tools it lists.
	Tools int `json:"tools"`
	// Restarts counts its restarts after crashes or failed attempts.
	Restarts int `json:"restarts"`
	// LastError is its most recent failure (secrets are never part of it).
	LastError string `json:"last_error,omitempty"`
}

// ReadinessOf reports which of h's servers are up.
func ReadinessOf(h *host.Host) Readiness {
	r := Readiness{Ready: true, Servers: []ServerReadiness{}}
	for _, st := range h.Statuses() {
		up := st.State == supervisor.StateConnected
		if !up && st.State != supervisor.StateDisabled && st.State != supervisor.StateInvalid {
			r.Ready = false
		}
		r.Servers = append(r.Servers, ServerReadiness{
			Name: st.Name, State: st.State, Up: up, Tools: st.Tools, Restarts: st.Restarts, LastError: st.LastError,
		})
	}
	return r
}

// readiness serves /readyz: 200 when ready, else 503. With the token (or
// without auth) the body is Readiness; a request without any
// Authorization header — a Kubernetes or load-balancer probe, which cannot
// carry a secret — gets the status and {"ready": bool} only, since server
// names and errors are for the token's holders. A wrong token is 401.
func (d *Door) readiness() http.Handler {
	full := d.guard(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r := ReadinessOf(d.h)
		checkStore(req.Context(), d.h, &r)
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
		r := ReadinessOf(d.h)
		checkStore(req.Context(), d.h, &r)
		writeReadiness(w, r.Ready, struct {
			Ready bool `json:"ready"`
		}{r.Ready})
	})
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
