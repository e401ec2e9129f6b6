package chat

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// ErrorKind says what went wrong with the model endpoint.
type ErrorKind int

// The kinds of EndpointError.
const (
	// Unreachable: no HTTP answer (connection refused, DNS, TLS).
	Unreachable ErrorKind = iota
	// Unauthorized: 401 or 403, a missing or wrong API key.
	Unauthorized
	// ModelNotFound: the endpoint does not serve the model.
	ModelNotFound
	// NotFound: 404 for the chat-completions path itself.
	NotFound
	// BadStatus: any other error status.
	BadStatus
	// BadResponse: a 200 answer that is not a chat completion.
	BadResponse
)

// EndpointError is a failure of the model endpoint, with what to do about
// it in its text.
type EndpointError struct {
	Kind ErrorKind
	// URL is the endpoint's base URL.
	URL string
	// Model is the model asked for.
	Model string
	// Status is the HTTP status (0 without an answer).
	Status int
	// Message is the endpoint's own error message.
	Message string
	// Models are the endpoint's models, when the model was not found and
	// the endpoint lists them.
	Models []string
	// KeyEnv names the API key's variable; KeySent tells whether a key
	// was sent.
	KeyEnv  string
	KeySent bool
	// Err is the underlying error (Unreachable, BadResponse).
	Err error
}

// Error implements error.
func (e *EndpointError) Error() string {
	switch e.Kind {
	case Unreachable:
		return fmt.Sprintf("cannot reach the model endpoint %s: %v (is it running? for Ollama run `ollama serve`; otherwise pass --base-url or set chat.base_url)", e.URL, e.Err)
	case Unauthorized:
		return e.unauthorized()
	case ModelNotFound:
		msg := fmt.Sprintf("model %q not found at %s: %s", e.Model, e.URL, e.Message)
		if len(e.Models) > 0 {
			msg += "; it serves: " + strings.Join(first(e.Models, 20), ", ")
		}
		return msg + " (pass --model or set chat.model; for Ollama, `ollama pull " + e.Model + "`)"
	case NotFound:
		return fmt.Sprintf("%s/chat/completions answered 404 (%s): is --base-url the API root, such as http://127.0.0.1:11434/v1?", strings.TrimRight(e.URL, "/"), e.Message)
	case BadResponse:
		return fmt.Sprintf("the model endpoint %s answered something that is not a chat completion: %v", e.URL, e.Err)
	}
	return fmt.Sprintf("the model endpoint %s answered HTTP %d: %s", e.URL, e.Status, e.Message)
}

func (e *EndpointError) unauthorized() string {
	msg := fmt.Sprintf("the model endpoint %s refused the request (HTTP %d: %s)", e.URL, e.Status, e.Message)
	switch {
	case !e.KeySent:
		return msg + "; no API key was sent: pass --api-key-env VAR (or set chat.api_key_env) naming the environment variable that holds it"
	case e.KeyEnv != "":
		return msg + "; check the API key in $" + e.KeyEnv
	}
	return msg + "; check the API key"
}

// Unwrap returns the underlying error.
func (e *EndpointError) Unwrap() error { return e.Err }

func first(list []string, n int) []string {
	if len(list) > n {
		return append(list[:n:n], fmt.Sprintf("… %d more", len(list)-n))
	}
	return list
}

// errorMessage reads an error body: {"error": {"message", "code"}},
// {"error": "text"}, {"message": "text"} or plain text.
func errorMessage(b []byte) (msg, code string) {
	var obj struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(b, &obj) == nil {
		var inner struct {
			Message string `json:"message"`
			Code    any    `json:"code"`
		}
		var text string
		switch {
		case json.Unmarshal(obj.Error, &text) == nil && text != "":
			return text, ""
		case json.Unmarshal(obj.Error, &inner) == nil && inner.Message != "":
			if s, ok := inner.Code.(string); ok {
				code = s
			}
			return inner.Message, code
		case obj.Message != "":
			return obj.Message, ""
		}
	}
	text := strings.TrimSpace(string(b))
	if len(text) > 500 {
		text = text[:500] + "…"
	}
	if text == "" {
		text = "no message"
	}
	return text, ""
}

// classify tells the kind of an error answer.
func classify(status int, code, msg string) ErrorKind {
	lower := strings.ToLower(msg)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return Unauthorized
	case code == "model_not_found":
		return ModelNotFound
	case status == http.StatusNotFound && strings.Contains(lower, "model"):
		return ModelNotFound
	case status == http.StatusNotFound:
		return NotFound
	}
	return BadStatus
}
