package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/config/catalog"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/manage"
)

// ServerWrite is the body of POST /api/servers and PUT /api/servers/{name}.
type ServerWrite struct {
	// Name is the new server's name (POST only).
	Name string `json:"name,omitempty"`
	// Server is the entry as config.json holds it; a secret sent as "****"
	// keeps the stored value (PUT).
	Server *config.Server `json:"server"`
	// IfVersion refuses the write with 409 unless the config file is
	// still at this version.
	IfVersion string `json:"if_version,omitempty"`
}

// ServerWritten is the answer of a server write.
type ServerWritten struct {
	// Result is what the write did to the file.
	Result any `json:"result"`
	// Server is the server's row after the config was applied.
	Server *host.ServerRow `json:"server,omitempty"`
	// Version is the config file's version after the write.
	Version string `json:"version"`
	// Apply is the outcome of applying the written file to the host.
	Apply host.ApplyStatus `json:"apply"`
}

// EnabledWrite is the body of POST /api/servers/{name}/enabled.
type EnabledWrite struct {
	// Enabled is the new "enabled" setting.
	Enabled *bool `json:"enabled"`
	// IfVersion is as in ServerWrite.
	IfVersion string `json:"if_version,omitempty"`
}

// SettingsBody is the body of GET /api/settings (and of PUT's answer).
type SettingsBody struct {
	// Settings are the effective global settings.
	Settings manage.Settings `json:"settings"`
	// Version is the config file's version.
	Version string `json:"version"`
	// ContextCost is the tool definitions' size with discovery off and on
	// (as GET /api/context-cost).
	ContextCost ContextCostList `json:"context_cost"`
}

// SettingsWrite is the body of PUT /api/settings.
type SettingsWrite struct {
	// Settings are the tools.mcp keys to change, as a JSON merge patch
	// (manage.UpdateSettings): keys left out keep their value, null
	// removes a key (back to the default).
	Settings json.RawMessage `json:"settings"`
	// IfVersion is as in ServerWrite.
	IfVersion string `json:"if_version,omitempty"`
}

// InstallWrite is the body of POST /api/catalog/{id}/install.
type InstallWrite struct {
	// Name is the server's name (the preset's id when empty).
	Name string `json:"name,omitempty"`
	// Credentials map a credential's key to its value.
	Credentials map[string]string `json:"credentials,omitempty"`
	// Arguments map an argument's key to its value (a string, or for a
	// list an array of strings).
	Arguments map[string]catalog.Value `json:"arguments,omitempty"`
	// IfVersion is as in ServerWrite.
	IfVersion string `json:"if_version,omitempty"`
}

// CatalogBody is the body of GET /api/catalog.
type CatalogBody struct {
	// Presets are the catalog's presets, sorted by name.
	Presets []catalog.Preset `json:"presets"`
}

// decode reads a JSON body into v (an empty body leaves v as it is).
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeBadRequest,
			Message: fmt.Sprintf("the body is larger than %d bytes", maxBody)}
	}
	if len(b) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return &Error{Status: http.StatusBadRequest, Code: CodeBadRequest,
			Message: fmt.Sprintf("the body is not the JSON this endpoint takes (see docs/api.md): %v", err)}
	}
	return nil
}

// writeOptions returns the version check of a write: the body's
// if_version, else the If-Match header.
func writeOptions(r *http.Request, ifVersion string) manage.WriteOptions {
	if ifVersion == "" {
		ifVersion = r.Header.Get("If-Match")
	}
	return manage.WriteOptions{IfVersion: ifVersion}
}

// applied applies the written file to the running host, as the file watch
// does, so the answer shows the new state. A config the host refuses is
// reported in the answer's apply status, not as an error: the write
// happened.
func (a *handler) applied() host.ApplyStatus {
	if _, err := a.o.Manager.Reload(a.o.Host); err != nil {
		var invalid *host.InvalidConfigError
		if !errors.As(err, &invalid) {
			a.o.Logger.Warn("config written but not applied", "error", err)
		}
	}
	return a.o.Host.LastApply()
}

// row returns the row of server name, nil if it is not configured.
func (a *handler) row(ctx context.Context, name string) *host.ServerRow {
	for _, r := range a.o.Host.ServerRows(ctx) {
		if r.Name == name {
			return &r
		}
	}
	return nil
}

func (a *handler) written(w http.ResponseWriter, r *http.Request, status int, name string, result any) {
	apply := a.applied()
	writeJSON(w, status, ServerWritten{Result: result, Server: a.row(r.Context(), name), Version: a.version(), Apply: apply})
}

func (a *handler) addServer(w http.ResponseWriter, r *http.Request) {
	var body ServerWrite
	if err := decode(w, r, &body); err != nil {
		writeError(w, err)
		return
	}
	if body.Name == "" {
		msg := config.CheckServerName(body.Name)
		writeError(w, &Error{Status: http.StatusUnprocessableEntity, Code: CodeInvalidConfig, Message: "name: " + msg,
			Problems: []*config.ValidationError{{Path: "name", Msg: msg}}})
		return
	}
	if body.Server == nil {
		writeError(w, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest,
			Message: `send {"name": "<server name>", "server": {...the entry as in config.json...}}`})
		return
	}
	res, err := a.o.Manager.AddServer(body.Name, *body.Server, manage.AddOptions{WriteOptions: writeOptions(r, body.IfVersion)})
	if err != nil {
		writeError(w, err)
		return
	}
	a.o.Logger.Info("server added through the API", "server", body.Name)
	a.written(w, r, http.StatusCreated, body.Name, res)
}

func (a *handler) updateServer(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var body ServerWrite
	if err := decode(w, r, &body); err != nil {
		writeError(w, err)
		return
	}
	if body.Server == nil {
		writeError(w, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest,
			Message: `send {"server": {...the entry as in config.json...}, "if_version": "..."}`})
		return
	}
	res, err := a.o.Manager.UpdateServer(name, *body.Server, writeOptions(r, body.IfVersion))
	if err != nil {
		writeError(w, err)
		return
	}
	a.o.Logger.Info("server changed through the API", "server", name)
	a.written(w, r, http.StatusOK, name, res)
}

func (a *handler) removeServer(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var body struct {
		IfVersion string `json:"if_version"`
	}
	if err := decode(w, r, &body); err != nil {
		writeError(w, err)
		return
	}
	if body.IfVersion == "" {
		body.IfVersion = r.URL.Query().Get("if_version")
	}
	res, err := a.o.Manager.RemoveServer(name, writeOptions(r, body.IfVersion))
	if err != nil {
		writeError(w, err)
		return
	}
	a.o.Logger.Info("server removed through the API", "server", name)
	a.written(w, r, http.StatusOK, name, res)
}

func (a *handler) setEnabled(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var body EnabledWrite
	if err := decode(w, r, &body); err != nil {
		writeError(w, err)
		return
	}
	if body.Enabled == nil {
		writeError(w, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: `send {"enabled": true|false, "if_version": "..."}`})
		return
	}
	res, err := a.o.Manager.SetEnabled(name, *body.Enabled, writeOptions(r, body.IfVersion))
	if err != nil {
		writeError(w, err)
		return
	}
	a.o.Logger.Info("server enabled or disabled through the API", "server", name, "enabled", *body.Enabled)
	a.written(w, r, http.StatusOK, name, res)
}

// settingsBody returns the settings as the config file has them now (the
// host's applied config if the file cannot be loaded).
func (a *handler) settingsBody(ctx context.Context) (SettingsBody, error) {
	cfg := a.o.Host.Config()
	if l, err := a.o.Manager.Load(); err == nil {
		cfg = l.Config
	}
	costs, err := a.o.Host.ContextCosts(ctx)
	if err != nil {
		return SettingsBody{}, err
	}
	return SettingsBody{Settings: manage.SettingsOf(cfg), Version: a.version(), ContextCost: ContextCostList{Costs: costs}}, nil
}

func (a *handler) settings(w http.ResponseWriter, r *http.Request) {
	body, err := a.settingsBody(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, body)
}

func (a *handler) updateSettings(w http.ResponseWriter, r *http.Request) {
	var body SettingsWrite
	if err := decode(w, r, &body); err != nil {
		writeError(w, err)
		return
	}
	if len(body.Settings) == 0 || string(body.Settings) == "null" {
		writeError(w, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: `send {"settings": {...}, "if_version": "..."}`})
		return
	}
	if _, err := a.o.Manager.UpdateSettings(body.Settings, writeOptions(r, body.IfVersion)); err != nil {
		writeError(w, err)
		return
	}
	a.o.Logger.Info("settings changed through the API")
	a.applied()
	a.settings(w, r)
}

// catalog loads the catalog (the embedded presets and the user's file).
func (a *handler) catalog() (*catalog.List, error) {
	c, err := catalog.Load(a.o.Manager.CatalogFile())
	if err != nil {
		return nil, &Error{Status: http.StatusInternalServerError, Code: CodeInvalidCatalog, Message: err.Error()}
	}
	return c, nil
}

func (a *handler) getCatalog(w http.ResponseWriter, _ *http.Request) {
	c, err := a.catalog()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, CatalogBody{Presets: c.Presets})
}

func (a *handler) install(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var body InstallWrite
	if err := decode(w, r, &body); err != nil {
		writeError(w, err)
		return
	}
	c, err := a.catalog()
	if err != nil {
		writeError(w, err)
		return
	}
	p, ok := c.Find(id)
	if !ok {
		writeError(w, &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: fmt.Sprintf("no preset %q in the catalog", id)})
		return
	}
	name := body.Name
	if name == "" {
		name = p.ID
	}
	res, err := a.o.Manager.Install(p, name, catalog.Input{Credentials: body.Credentials, Arguments: body.Arguments},
		manage.AddOptions{WriteOptions: writeOptions(r, body.IfVersion)})
	if err != nil {
		writeError(w, err)
		return
	}
	a.o.Logger.Info("preset installed through the API", "preset", id, "server", name)
	a.written(w, r, http.StatusCreated, name, res)
}
