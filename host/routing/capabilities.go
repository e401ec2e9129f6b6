package routing

import "encoding/json"

// Capabilities are the parts of a server's capabilities the router and
// the host use (a member is nil when the server does not offer it).
type Capabilities struct {
	// Resources is the server's resources capability.
	Resources *struct {
		Subscribe   bool `json:"subscribe"`
		ListChanged bool `json:"listChanged"`
	} `json:"resources"`
	// Prompts is the server's prompts capability.
	Prompts *struct {
		ListChanged bool `json:"listChanged"`
	} `json:"prompts"`
	// Completions is the server's completions capability, raw.
	Completions json.RawMessage `json:"completions"`
	// Logging is the server's logging capability, raw.
	Logging json.RawMessage `json:"logging"`
	// Tasks is the server's tasks capability.
	Tasks *struct {
		List     json.RawMessage `json:"list"`
		Cancel   json.RawMessage `json:"cancel"`
		Requests struct {
			Tools struct {
				Call json.RawMessage `json:"call"`
			} `json:"tools"`
		} `json:"requests"`
	} `json:"tasks"`
}
