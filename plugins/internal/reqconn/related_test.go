package reqconn

import (
	"encoding/json"
	"testing"
)

func TestWithRelatedRequest(t *testing.T) {
	id := json.RawMessage(`"plughost-3"`)
	cases := []struct {
		name   string
		params any
		want   string
	}{
		{"no params", nil, `{"_meta":{"dev.plughost/related-request":"plughost-3"}}`},
		{"params", map[string]any{"maxTokens": 1.0}, `{"_meta":{"dev.plughost/related-request":"plughost-3"},"maxTokens":1}`},
		{"own meta", map[string]any{"_meta": map[string]any{"k": "v"}}, `{"_meta":{"dev.plughost/related-request":"plughost-3","k":"v"}}`},
		{"odd meta", map[string]any{"_meta": 5.0}, `{"_meta":5}`},
		{"not an object", []any{1.0}, `[1]`},
	}
	for _, c := range cases {
		got, _ := json.Marshal(withRelatedRequest(c.params, id))
		if string(got) != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
