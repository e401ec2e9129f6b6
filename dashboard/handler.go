package dashboard

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/lib/origin"
	"github.com/plughost/plughost/lib/secret"
)

// Routes the dashboard serves.
const (
	// AssetsPattern serves the page and its assets (public).
	AssetsPattern = "/"
	// SessionPath exchanges a login code for the token (public, POST).
	SessionPath = "/dashboard/session"
	// LoginCodesPath issues a login code (behind the token, POST).
	LoginCodesPath = "/dashboard/login-codes"
)

//go:embed static
var static embed.FS

// maxRequestBytes caps the JSON bodies of the login routes.
const maxRequestBytes = 4 << 10

// Options configure a Dashboard.
type Options struct {
	// Token is the bearer token the page needs for /api ("" when serve
	// runs without auth: the exchange then hands out "").
	Token secret.String
	// Codes holds the login codes; nil makes a store of its own.
	Codes *Codes
	// Logger receives logins (never codes or tokens); nil discards.
	Logger hclog.Logger
}

// Dashboard serves the page and its login routes.
type Dashboard struct {
	o      Options
	assets assetTable
}

// Mounter is where the dashboard mounts its routes: the front door, whose
// Mount puts a route behind the bearer token and MountPublic does not.
type Mounter interface {
	Mount(pattern string, h http.Handler)
	MountPublic(pattern string, h http.Handler)
}

// New returns the dashboard.
func New(o Options) *Dashboard {
	if o.Codes == nil {
		o.Codes = NewCodes(nil)
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	sub, err := fs.Sub(static, "static")
	if err != nil { // the embed directive guarantees the directory
		panic(fmt.Sprintf("dashboard: embedded assets: %v", err))
	}
	assets, err := newAssetTable(sub)
	if err != nil { // embedded files always read
		panic(fmt.Sprintf("dashboard: %v", err))
	}
	return &Dashboard{o: o, assets: assets}
}

// MountOn mounts the assets and the session exchange as public routes and
// the login-code route behind the token.
func (d *Dashboard) MountOn(m Mounter) {
	m.MountPublic(AssetsPattern, d.Assets())
	m.MountPublic("POST "+SessionPath, d.Session())
	m.Mount("POST "+LoginCodesPath, d.LoginCodes())
}

// Assets serves the embedded page (GET and HEAD only) with the security
// headers, gzip-compressed when the browser accepts it, with an ETag the
// browser revalidates its copy with (304 when it is current).
func (d *Dashboard) Assets() http.Handler {
	return secure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", fmt.Sprintf("%s %s: the dashboard's pages are read with GET", r.Method, r.URL.Path))
			return
		}
		a, ok := d.assets[r.URL.Path]
		if !ok {
			w.Header().Set("Cache-Control", "no-cache")
			http.Error(w, "404 page not found", http.StatusNotFound)
			return
		}
		a.serve(w, r)
	}))
}

// LoginCodes issues a one-time login code: mount it behind the token.
func (d *Dashboard) LoginCodes() http.Handler {
	return secure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !sameOrigin(w, r, false) {
			return
		}
		code, err := d.o.Codes.Issue()
		if err != nil {
			writeError(w, http.StatusInternalServerError, "internal", err.Error())
			return
		}
		d.o.Logger.Info("dashboard login code issued", "expires_in", CodeTTL)
		writeJSON(w, http.StatusCreated, map[string]any{"code": code, "expires_in_seconds": int(CodeTTL / time.Second)})
	}))
}

// Session exchanges a login code for the bearer token: public, but only
// for a same-origin browser request with a JSON body, and each code once.
func (d *Dashboard) Session() http.Handler {
	return secure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !sameOrigin(w, r, true) || !jsonBody(w, r) {
			return
		}
		var body struct {
			Code string `json:"code"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, maxRequestBytes)).Decode(&body); err != nil {
			writeError(w, http.StatusBadRequest, "bad_request", `send {"code": "<login code>"} as JSON`)
			return
		}
		if err := d.o.Codes.Redeem(body.Code); err != nil {
			d.o.Logger.Warn("dashboard login refused: bad code", "remote", r.RemoteAddr)
			writeError(w, http.StatusUnauthorized, "bad_code", err.Error())
			return
		}
		d.o.Logger.Info("dashboard logged in", "remote", r.RemoteAddr)
		writeJSON(w, http.StatusOK, map[string]string{"token": d.o.Token.Reveal()})
	}))
}

// sameOrigin answers 403 (and false) when the request's Origin is not the
// server itself; without an Origin header the request passes unless
// required (a browser always sends one on a POST).
func sameOrigin(w http.ResponseWriter, r *http.Request, required bool) bool {
	o := r.Header.Get("Origin")
	if o == "" && !required {
		return true
	}
	if o != "" && origin.Own(o, r.Host) {
		return true
	}
	msg := fmt.Sprintf("requests from origin %q are refused: only the dashboard's own page may log in", o)
	if o == "" {
		msg = "the request has no Origin header: only the dashboard's own page may log in"
	}
	writeError(w, http.StatusForbidden, "forbidden", msg)
	return false
}

// jsonBody answers 415 (and false) unless the body is declared JSON, which
// an HTML form cannot send across origins without a preflight.
func jsonBody(w http.ResponseWriter, r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err == nil && mt == "application/json" {
		return true
	}
	writeError(w, http.StatusUnsupportedMediaType, "forbidden", `send the body as JSON with "Content-Type: application/json"`)
	return false
}

// writeJSON sends v with status, never cached.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client went away: nothing to do
}

// writeError sends an error in the API's shape.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

// LoginURL is the page's address that logs in with code: the code rides in
// the fragment, which browsers never send to a server or a proxy log.
func LoginURL(base, code string) string {
	return strings.TrimSuffix(base, "/") + "/#code=" + url.QueryEscape(code)
}
