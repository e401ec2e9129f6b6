package api

import (
	"net/http"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/manage"
)

// ClientList is the body of GET /api/clients: the gateway's named clients,
// never their tokens or digests.
type ClientList struct {
	// Clients are the configured clients, by name.
	Clients []manage.ClientListing `json:"clients"`
}

// ClientWrite is the body of POST /api/clients.
type ClientWrite struct {
	// Name is the new client's name.
	Name string `json:"name"`
	// Servers are the servers it may use; each must be configured.
	Servers []string `json:"servers"`
	// IncludeTools and ExcludeTools are globs on agent-facing tool names.
	IncludeTools []string `json:"include_tools,omitempty"`
	ExcludeTools []string `json:"exclude_tools,omitempty"`
	// IfVersion is as in ServerWrite.
	IfVersion string `json:"if_version,omitempty"`
}

// ClientWritten is the answer of a client write.
type ClientWritten struct {
	// Name is the client's name.
	Name string `json:"name"`
	// Token is the new client's token, in clear: the one time it is
	// shown (POST only).
	Token string `json:"token,omitempty"`
	// Result is what the write did to the file.
	Result manage.WriteResult `json:"result"`
	// Version is the config file's version after the write.
	Version string `json:"version"`
	// Apply is the outcome of applying the written file to the host.
	Apply host.ApplyStatus `json:"apply"`
}

func (a *handler) clients(w http.ResponseWriter, _ *http.Request) {
	list, err := a.o.Manager.Clients()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, ClientList{Clients: list})
}

// addClient writes a new client with manage.AddClient, as `plughost mcp
// client add` does, applies it, and answers its token once.
func (a *handler) addClient(w http.ResponseWriter, r *http.Request) {
	var body ClientWrite
	if err := decode(w, r, &body); err != nil {
		writeError(w, err)
		return
	}
	if msg := config.CheckClientName(body.Name); msg != "" {
		writeError(w, fieldError("name", msg))
		return
	}
	if len(body.Servers) == 0 {
		writeError(w, fieldError("servers", "name at least one server the client may use"))
		return
	}
	res, err := a.o.Manager.AddClient(body.Name, manage.ClientInput{Servers: body.Servers,
		IncludeTools: body.IncludeTools, ExcludeTools: body.ExcludeTools}, writeOptions(r, body.IfVersion))
	if err != nil {
		writeError(w, err)
		return
	}
	a.o.Logger.Info("client added through the API", "client", body.Name)
	apply := a.applied()
	writeJSON(w, http.StatusCreated, ClientWritten{Name: res.Name, Token: res.Token.Reveal(),
		Result: res.WriteResult, Version: a.version(), Apply: apply})
}

// removeClient deletes a client with manage.RemoveClient and applies it:
// its token and sessions stop working.
func (a *handler) removeClient(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var body struct {
		IfVersion string `json:"if_version"`
	}
	if err := decode(w, r, &body); err != nil {
		writeError(w, err)
		return
	}
	res, err := a.o.Manager.RemoveClient(name, writeOptions(r, body.IfVersion))
	if err != nil {
		writeError(w, err)
		return
	}
	a.o.Logger.Info("client removed through the API", "client", name)
	apply := a.applied()
	writeJSON(w, http.StatusOK, ClientWritten{Name: name, Result: res, Version: a.version(), Apply: apply})
}

// fieldError is a 400 about one field of the request body, with the
// field's name as the problem's path so a form shows it beside the field.
func fieldError(field, msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: field + ": " + msg,
		Problems: []*config.ValidationError{{Path: field, Msg: msg}}}
}
