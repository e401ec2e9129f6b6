package frontdoor

import (
	"encoding/json"
	"net/http"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
)

// Readiness is the body of /readyz.
type Readiness struct {
	// Ready is true when every enabled server with a valid config is
	// connected.
	Ready bool `json:"ready"`
	// Servers lists every configured server.
	Servers []ServerReadiness `json:"servers"`
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

// readyz answers 200 when ready, else 503, with Readiness as JSON either way.
func (d *Door) readyz(w http.ResponseWriter, _ *http.Request) {
	r := ReadinessOf(d.h)
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
