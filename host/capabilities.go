package host

import (
	"encoding/json"
	"strings"

	"github.com/plughost/plughost/host/routing"
)

// serverCaps returns what server offers, from its last initialize (kept
// while it is down); ok is false when it is not running or never
// initialized.
func (h *Host) serverCaps(server string) (routing.Capabilities, bool) {
	srv, ok := h.Server(server)
	if !ok {
		return routing.Capabilities{}, false
	}
	init, ok := srv.Initialized()
	if !ok {
		return routing.Capabilities{}, false
	}
	var c routing.Capabilities
	if json.Unmarshal(init.Capabilities, &c) != nil {
		return routing.Capabilities{}, false
	}
	return c, true
}

// ServerCapabilities returns what plughost offers a client as one MCP
// server (the aggregate endpoint), raw: tools always (with listChanged),
// and each other feature — resources (subscribe when a server supports
// it), prompts, completions, logging, tasks for tools/call — when at least
// one server that initialized offers it. list_changed of resources and
// prompts is declared with them: plughost forwards the servers' own.
func (h *Host) ServerCapabilities() json.RawMessage {
	var parts []string
	parts = append(parts, `"tools":{"listChanged":true}`)
	var res, sub, prompts, completions, logging, tasks, taskList, taskCancel bool
	for _, name := range h.st().order {
		c, ok := h.serverCaps(name)
		if !ok {
			continue
		}
		res = res || c.Resources != nil
		sub = sub || (c.Resources != nil && c.Resources.Subscribe)
		prompts = prompts || c.Prompts != nil
		completions = completions || c.Completions != nil
		logging = logging || c.Logging != nil
		if c.Tasks != nil && c.Tasks.Requests.Tools.Call != nil {
			tasks = true
			taskList = taskList || c.Tasks.List != nil
			taskCancel = taskCancel || c.Tasks.Cancel != nil
		}
	}
	if res {
		if sub {
			parts = append(parts, `"resources":{"subscribe":true,"listChanged":true}`)
		} else {
			parts = append(parts, `"resources":{"listChanged":true}`)
		}
	}
	if prompts {
		parts = append(parts, `"prompts":{"listChanged":true}`)
	}
	if completions {
		parts = append(parts, `"completions":{}`)
	}
	if logging {
		parts = append(parts, `"logging":{}`)
	}
	if tasks {
		t := `"tasks":{`
		if taskList {
			t += `"list":{},`
		}
		if taskCancel {
			t += `"cancel":{},`
		}
		parts = append(parts, t+`"requests":{"tools":{"call":{}}}}`)
	}
	return json.RawMessage("{" + strings.Join(parts, ",") + "}")
}
