package config

import (
	"net/url"
	"regexp"
)

// DefaultChatBaseURL is chat.base_url's default: Ollama's
// OpenAI-compatible API on this machine.
const DefaultChatBaseURL = "http://127.0.0.1:11434/v1"

// Chat is the top-level chat section (beside tools): the model endpoint
// `plughost chat` talks to. Its command-line flags override it.
type Chat struct {
	// BaseURL is the root of an OpenAI-compatible API;
	// "/chat/completions" is appended.
	BaseURL string `json:"base_url"`
	// Model is the model's name at that endpoint.
	Model string `json:"model"`
	// APIKeyEnv names the environment variable holding the API key (sent
	// as a bearer token); empty sends none. The key itself is never
	// written in the config or on the command line.
	APIKeyEnv string `json:"api_key_env"`
}

// envName is what an environment variable's name may be.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkChat checks the chat section. Its messages never quote api_key_env's
// value: a user may have pasted the key itself there.
func checkChat(p *Problems, c Chat) {
	if u, err := url.Parse(c.BaseURL); c.BaseURL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		p.fatal("chat.base_url", "must be an http(s) URL such as "+DefaultChatBaseURL+" (the API root; /chat/completions is appended)")
	}
	if c.APIKeyEnv != "" && !envName.MatchString(c.APIKeyEnv) {
		p.fatal("chat.api_key_env", "must be the name of an environment variable holding the key (letters, digits and _), never the key itself, e.g. OPENAI_API_KEY")
	}
}
