package config

import (
	"strings"
	"testing"
)

// TestChatSection: `chat` sits at the top level beside `tools`, is read
// from every layer, and is checked by the one validator.
func TestChatSection(t *testing.T) {
	l := loadUser(t, `{"chat": {"base_url": "https://api.example.com/v1", "model": "gpt-x", "api_key_env": "EXAMPLE_API_KEY"}}`)
	if err := l.Validate(ValidateOptions{}).Err(); err != nil {
		t.Fatalf("a valid chat section was refused: %v", err)
	}
	want := Chat{BaseURL: "https://api.example.com/v1", Model: "gpt-x", APIKeyEnv: "EXAMPLE_API_KEY"}
	if l.Config.Chat != want {
		t.Fatalf("Chat = %+v, want %+v", l.Config.Chat, want)
	}
	if d := loadUser(t, `{}`).Config.Chat.BaseURL; d != DefaultChatBaseURL {
		t.Errorf("default base_url = %q, want %q", d, DefaultChatBaseURL)
	}
	for name, c := range map[string]struct{ data, path, says string }{
		"not a URL":     {`{"chat": {"base_url": "127.0.0.1:11434"}}`, "chat.base_url", "http(s) URL"},
		"key in a name": {`{"chat": {"api_key_env": "sk-abc def"}}`, "chat.api_key_env", "name of an environment variable"},
	} {
		t.Run(name, func(t *testing.T) {
			err := loadUser(t, c.data).Validate(ValidateOptions{}).Err()
			if err == nil || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("got %v, want a problem at %s saying %q", err, c.path, c.says)
			}
			if strings.Contains(err.Error(), "sk-abc") {
				t.Errorf("the problem quotes the value, which may be a key: %v", err)
			}
		})
	}
	t.Run("misspelled key", func(t *testing.T) {
		err := loadUser(t, `{"chat": {"api_key": "sk-secret"}}`).Validate(ValidateOptions{}).Err()
		if err == nil || !strings.Contains(err.Error(), "api_key_env") {
			t.Fatalf("got %v, want a did-you-mean for api_key_env", err)
		}
	})
}
